"""Checking a solution file: a task's command or checker, run sandboxed with a timeout."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path

from pyadk.contrib.bench._verify_main import VERDICT
from pyadk.contrib.bench.tasks import Task
from pyadk.contrib.structured_workflow.sandbox import (
    SandboxLimits,
    run_process,
    run_python_module,
    sandbox_env,
)

GUARD_DIR = Path(__file__).with_name("_guard")
"""Holds a sitecustomize.py that sandboxes every Python a verification command starts."""


@dataclass
class VerificationResult:
    """The verdict on a solution."""

    passed: bool
    reason: str = ""


def _tail(text: str, limit: int = 1500) -> str:
    text = text.strip()
    return text if len(text) <= limit else "..." + text[-limit:]


async def verify_solution(
    task: Task, solution: Path, task_dir: Path, timeout: float
) -> VerificationResult:
    """Runs the task's verification on ``solution``."""
    check = task.verification
    limits = SandboxLimits(timeout=check.timeout or timeout, allow_subprocesses=True)
    if check.command is not None:
        env = sandbox_env(task_dir, limits)
        env["PYTHONPATH"] = f"{GUARD_DIR}:{env['PYTHONPATH']}"
        env.update(
            {"SOLUTION_FILE": str(solution), "TASK_DIR": str(task_dir), "PYTHON": sys.executable}
        )
        result = await run_process(
            ["/bin/sh", "-c", check.command], cwd=task_dir, limits=limits, env=env
        )
        if result.status == "timeout":
            return VerificationResult(False, f"verification timed out after {limits.timeout:g} s")
        if result.exit_code == 0:
            return VerificationResult(True)
        output = _tail(result.stderr or result.stdout)
        return VerificationResult(False, f"command exited {result.exit_code}: {output}")
    limits = limits.model_copy(update={"allow_subprocesses": False})
    request = {"checker": check.checker, "solution": str(solution)}
    result = await run_python_module(
        "pyadk.contrib.bench._verify_main", request, cwd=task_dir, limits=limits
    )
    if result.status == "timeout":
        return VerificationResult(False, f"verification timed out after {limits.timeout:g} s")
    for line in reversed(result.stdout.splitlines()):
        if line.startswith(VERDICT):
            data = json.loads(line[len(VERDICT) :])
            return VerificationResult(bool(data["passed"]), str(data.get("reason", "")))
    return VerificationResult(
        False, f"the checker gave no verdict (exit {result.exit_code}): {_tail(result.stderr)}"
    )
