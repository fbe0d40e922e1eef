"""The starter suite's verification: reference solutions pass, wrong ones fail."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pyadk.contrib._loading import load_object
from pyadk.contrib.bench.tasks import Task, load_task_set
from pyadk.contrib.bench.verification import verify_solution

REFERENCE = Path(__file__).parents[1] / "support" / "reference_solutions"
SUITE = load_task_set("starter")
CHECKED = [t for t in SUITE.tasks if t.verification.checker]


def test_every_task_has_a_reference_solution() -> None:
    assert sorted(p.stem for p in REFERENCE.glob("*.py")) == sorted(t.id for t in SUITE.tasks)


@pytest.mark.parametrize("task", CHECKED, ids=[t.id for t in CHECKED])
def test_reference_solution_passes_its_checker(task: Task) -> None:
    checker = load_object(task.verification.checker or "")
    assert checker(str(REFERENCE / f"{task.id}.py")) is None


@pytest.mark.parametrize("task", CHECKED, ids=[t.id for t in CHECKED])
def test_a_wrong_solution_fails_the_checker(task: Task) -> None:
    wrong = "custom_agent" if task.id != "custom_agent" else "add_tool"
    checker = load_object(task.verification.checker or "")
    with pytest.raises(AssertionError):
        checker(str(REFERENCE / f"{wrong}.py"))


@pytest.mark.parametrize(
    ("task_id", "solution", "reason"),
    [
        ("calculator_tools", "add_tool", "no tool multiplies: [[5.0]]"),
        ("output_key", "hello_agent", "output_key is None"),
        ("guardrail_callback", "hello_agent", "the model was called for a forbidden request"),
        ("loop_exit", "sequential_pipeline", "the solution has no LoopAgent"),
        ("agent_transfer", "agent_tool", "sub-agents: []"),
    ],
)
def test_failure_reasons_say_what_is_missing(task_id: str, solution: str, reason: str) -> None:
    [task] = SUITE.select([task_id]).tasks
    with pytest.raises(AssertionError) as failure:
        load_object(task.verification.checker or "")(str(REFERENCE / f"{solution}.py"))
    assert str(failure.value) == reason


async def test_checker_verification_runs_sandboxed(tmp_path: Path) -> None:
    [task] = SUITE.select(["add_tool"]).tasks
    good = shutil.copy(REFERENCE / "add_tool.py", tmp_path / "agent.py")
    verdict = await verify_solution(task, Path(good), tmp_path, timeout=60)
    assert verdict.passed and verdict.reason == ""
    wrong = shutil.copy(REFERENCE / "hello_agent.py", tmp_path / "wrong.py")
    verdict = await verify_solution(task, Path(wrong), tmp_path, timeout=60)
    assert not verdict.passed and verdict.reason == "the agent has no function tool"


async def test_command_verification_of_the_first_task(tmp_path: Path) -> None:
    [task] = SUITE.select(["hello_agent"]).tasks
    good = shutil.copy(REFERENCE / "hello_agent.py", tmp_path / "agent.py")
    assert (await verify_solution(task, Path(good), tmp_path, timeout=60)).passed
    wrong = shutil.copy(REFERENCE / "add_tool.py", tmp_path / "wrong.py")
    verdict = await verify_solution(task, Path(wrong), tmp_path, timeout=60)
    assert not verdict.passed
    assert verdict.reason.startswith("command exited 1:")
    assert verdict.reason.endswith("AssertionError: adder")
