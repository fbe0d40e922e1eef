"""Tools of the structured workflow: shell, module help, sandboxed agent runs, plan saving."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import ValidationError

from pyadk.contrib.structured_workflow import schemas
from pyadk.contrib.structured_workflow.module_help import module_help
from pyadk.contrib.structured_workflow.sandbox import (
    SandboxLimits,
    run_process,
    run_python_module,
    sandbox_env,
)
from pyadk.tools.tool_context import ToolContext

MAX_SHELL_TIMEOUT = 120.0
"""The longest a shell command may run, whatever the model asks for."""
SHELL_OUTPUT_CHARS = 8000
"""Characters of stdout (and of stderr) a shell command returns."""
MAX_AGENT_RUN_TIMEOUT = 300.0
DEFAULT_SANDBOX_MODEL = "local"
SANDBOX_MODEL_KEY = "sandbox_model"
"""State key naming the model generated agents run with (a model spec)."""
AGENT_RUNNER_MODULE = "pyadk.contrib.structured_workflow._agent_runner"


class WorkspaceError(ValueError):
    """A path outside the workspace, or no workspace at all."""


def workspace_of(state: Any) -> Path:
    """The workspace directory recorded in state (it must exist)."""
    value = state.get(schemas.WORKSPACE_DIR)
    if not value:
        raise WorkspaceError("No workspace: state['workspace_dir'] is not set.")
    path = Path(str(value)).resolve()
    if not path.is_dir():
        raise WorkspaceError(f"The workspace {path} does not exist.")
    return path


def inside_workspace(workspace: Path, relative: str) -> Path:
    """``relative`` resolved inside ``workspace``; WorkspaceError if it escapes it."""
    path = (workspace / relative).resolve()
    if path != workspace and workspace not in path.parents:
        raise WorkspaceError(f"{relative!r} is outside the workspace.")
    return path


async def run_shell_command(
    command: str, tool_context: ToolContext, cwd: str = ".", timeout_seconds: float = 30.0
) -> dict[str, Any]:
    """Runs a shell command in the task workspace and returns its exit code and output.

    Args:
        command: The command line, e.g. "grep -rn LoopAgent adk_source".
        cwd: A directory inside the workspace to run it in (default: the workspace).
        timeout_seconds: Seconds before the command is killed (at most 120).
    """
    try:
        workspace = workspace_of(tool_context.state)
        directory = inside_workspace(workspace, cwd)
    except WorkspaceError as error:
        return {"status": "error", "message": str(error)}
    limits = SandboxLimits(
        timeout=max(0.1, min(float(timeout_seconds), MAX_SHELL_TIMEOUT)),
        max_output_chars=SHELL_OUTPUT_CHARS,
        memory_mb=None,
        allow_subprocesses=True,
    )
    result = await run_process(
        ["/bin/sh", "-c", command],
        cwd=directory,
        limits=limits,
        env=sandbox_env(workspace),
    )
    reply: dict[str, Any] = {
        "status": "timeout" if result.status == "timeout" else "ok",
        "exit_code": result.exit_code,
        "stdout": result.stdout,
        "stderr": result.stderr,
    }
    if result.truncated:
        reply["truncated"] = True
    return reply


def get_module_help(module_name: str, max_chars: int = 6000) -> dict[str, Any]:
    """Returns the docstrings and signatures of an importable Python module.

    Args:
        module_name: A dotted module name, e.g. "pyadk.agents".
        max_chars: The longest text to return.
    """
    try:
        text = module_help(module_name, max_chars=max(200, max_chars))
    except ImportError as error:
        return {"status": "not_found", "message": f"Cannot import {module_name!r}: {error}"}
    return {"status": "ok", "module": module_name, "help": text}


async def run_agent_file(
    agent_file: str | Path,
    prompt: str,
    *,
    model: str | None = DEFAULT_SANDBOX_MODEL,
    limits: SandboxLimits | None = None,
    cwd: str | Path | None = None,
    max_llm_calls: int = 20,
) -> schemas.RunResult:
    """Runs the agent file (it defines ``root_agent``) with ``prompt`` in a sandboxed
    child process and returns the transcript.

    ``model`` is a model spec (see :mod:`model_specs`) that replaces the models the file
    names by string; None keeps them.
    """
    path = Path(agent_file).resolve()
    limits = limits or SandboxLimits()
    request = {
        "agent_file": str(path),
        "prompt": prompt,
        "model": model,
        "max_llm_calls": max_llm_calls,
    }
    result = await run_python_module(
        AGENT_RUNNER_MODULE, request, cwd=cwd or path.parent, limits=limits
    )
    stdout = result.stdout
    if result.status == "timeout":
        stdout += f"\nRUN TIMED OUT after {limits.timeout:g} s"
    return schemas.RunResult(
        status="ok"
        if result.status == "ok"
        else "timeout"
        if result.status == "timeout"
        else "error",
        exit_code=result.exit_code,
        transcript=stdout,
        stderr=_tail(result.stderr, 3000),
        truncated=result.truncated,
    )


def _tail(text: str, limit: int) -> str:
    return text if len(text) <= limit else "[...]\n" + text[-limit:]


async def run_adk_agent(
    agent_file: str, prompt: str, tool_context: ToolContext, timeout_seconds: float = 60.0
) -> dict[str, Any]:
    """Runs a pyadk agent file of the workspace with a prompt, in a sandbox without network.

    Args:
        agent_file: The file (relative to the workspace); it must define root_agent.
        prompt: The user message to send to the agent.
        timeout_seconds: Seconds before the run is stopped (at most 300).
    """
    try:
        workspace = workspace_of(tool_context.state)
        path = inside_workspace(workspace, agent_file)
    except WorkspaceError as error:
        return {"status": "error", "message": str(error)}
    if not path.is_file():
        return {"status": "error", "message": f"No file {agent_file!r} in the workspace."}
    model = tool_context.state.get(SANDBOX_MODEL_KEY, DEFAULT_SANDBOX_MODEL)
    limits = SandboxLimits(timeout=max(1.0, min(float(timeout_seconds), MAX_AGENT_RUN_TIMEOUT)))
    result = await run_agent_file(path, prompt, model=model, limits=limits, cwd=workspace)
    return {"status": "completed", "run_status": result.status, "log": result.as_log()}


def save_implementation_plan(plan: str, tool_context: ToolContext) -> dict[str, str]:
    """Saves the step-by-step implementation plan.

    Args:
        plan: The numbered plan: imports, tools, agents, and the root_agent variable.
    """
    try:
        record = schemas.Plan(implementation_plan=plan.strip())
    except ValidationError:
        return {"status": "rejected", "message": "The plan is empty."}
    tool_context.state[schemas.IMPLEMENTATION_PLAN] = record.implementation_plan
    return {"status": "saved"}


def save_verification_plan(
    test_prompt: str, tool_context: ToolContext, expected_behavior: str = ""
) -> dict[str, str]:
    """Saves how to check the agent: a test prompt and the expected behaviour.

    Args:
        test_prompt: One user message to send to the finished agent.
        expected_behavior: What a correct run of that message shows.
    """
    try:
        record = schemas.VerificationPlan(
            test_prompt=test_prompt.strip(), expected_behavior=expected_behavior.strip()
        )
    except ValidationError:
        return {"status": "rejected", "message": "The test prompt is empty."}
    tool_context.state[schemas.VERIFICATION_PLAN] = record.test_prompt
    tool_context.state[schemas.VERIFICATION_EXPECTATION] = record.expected_behavior
    return {"status": "saved"}


def save_relevant_modules(modules: list[str], tool_context: ToolContext) -> dict[str, Any]:
    """Saves the pyadk modules whose documentation is needed (1 to 4 dotted names).

    Args:
        modules: Module names such as ["pyadk.agents.llm_agent", "pyadk.tools"].
    """
    chosen = schemas.RelevantModules(
        modules=[m.strip() for m in modules if isinstance(m, str) and m.strip()]
    )
    if not chosen.modules:
        return {"status": "rejected", "message": "Give at least one module name."}
    tool_context.state[schemas.RELEVANT_MODULES] = chosen.modules
    return {"status": "saved", "modules": chosen.modules}
