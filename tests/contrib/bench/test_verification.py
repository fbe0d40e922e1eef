"""Verifying a solution: command and checker verdicts, timeouts, the sandbox."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from pyadk.contrib.bench._verify_main import verdict_of
from pyadk.contrib.bench.tasks import Task
from pyadk.contrib.bench.verification import verify_solution

CHECKERS = """
import time

def ok(path):
    return None

def true(path):
    return True

def false(path):
    return False

def reason(path):
    return "the agent is missing"

def pair(path):
    return (False, "why not")

def boom(path):
    raise KeyError("lost")

def hang(path):
    time.sleep(60)

def network(path):
    import socket
    socket.socket().connect(("192.0.2.1", 80))

def reads_solution(path):
    assert open(path).read() == "x = 1\\n", "wrong content"
"""


def task(**verification: object) -> Task:
    return Task(id="t", request="r", verification=verification)


@pytest.fixture
def solution(tmp_path: Path) -> Path:
    path = tmp_path / "agent.py"
    path.write_text("x = 1\n", encoding="utf-8")
    (tmp_path / "checkers.py").write_text(CHECKERS, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("name", "passed", "reason"),
    [
        ("ok", True, ""),
        ("true", True, ""),
        ("reads_solution", True, ""),
        ("false", False, "the checker returned False"),
        ("reason", False, "the agent is missing"),
        ("pair", False, "why not"),
    ],
)
async def test_checker_verdicts(solution: Path, name: str, passed: bool, reason: str) -> None:
    checker = f"{solution.parent / 'checkers.py'}:{name}"
    verdict = await verify_solution(task(checker=checker), solution, solution.parent, 60)
    assert (verdict.passed, verdict.reason) == (passed, reason)


async def test_checker_exception_is_a_failure_with_its_traceback(solution: Path) -> None:
    checker = f"{solution.parent / 'checkers.py'}:boom"
    verdict = await verify_solution(task(checker=checker), solution, solution.parent, 60)
    assert not verdict.passed
    assert verdict.reason.startswith("KeyError: 'lost'\n")
    assert 'raise KeyError("lost")' in verdict.reason


async def test_checker_timeout(solution: Path) -> None:
    checker = f"{solution.parent / 'checkers.py'}:hang"
    verdict = await verify_solution(task(checker=checker, timeout=2), solution, solution.parent, 60)
    assert verdict == type(verdict)(False, "verification timed out after 2 s")


async def test_checker_runs_without_network(solution: Path) -> None:
    checker = f"{solution.parent / 'checkers.py'}:network"
    verdict = await verify_solution(task(checker=checker), solution, solution.parent, 60)
    assert not verdict.passed
    assert "SandboxViolation: network access to ('192.0.2.1', 80) is blocked" in verdict.reason


async def test_command_sees_the_solution_and_task_dir(solution: Path) -> None:
    command = 'test "$(cat "$SOLUTION_FILE")" = "x = 1" && test "$TASK_DIR" = "$(pwd)"'
    verdict = await verify_solution(task(command=command), solution, solution.parent, 60)
    assert verdict.passed, verdict.reason


async def test_command_failure_and_timeout(solution: Path) -> None:
    verdict = await verify_solution(
        task(command="echo broken >&2; exit 3"), solution, solution.parent, 60
    )
    assert verdict == type(verdict)(False, "command exited 3: broken")
    verdict = await verify_solution(task(command="sleep 30"), solution, solution.parent, 1)
    assert verdict == type(verdict)(False, "verification timed out after 1 s")


async def test_python_started_by_a_command_is_sandboxed(solution: Path) -> None:
    code = textwrap.dedent(
        """
        import socket
        socket.socket().connect(("192.0.2.1", 80))
        """
    )
    (solution.parent / "net.py").write_text(code, encoding="utf-8")
    verdict = await verify_solution(task(command='"$PYTHON" net.py'), solution, solution.parent, 60)
    assert not verdict.passed
    assert "network access to ('192.0.2.1', 80) is blocked in the sandbox" in verdict.reason


def test_verdict_forms() -> None:
    assert verdict_of(None) == (True, "")
    assert verdict_of((True, None)) == (True, "")
    assert verdict_of("") == (False, "")
    assert verdict_of(1) == (True, "")
