"""ExecuteBashTool: a command checked by its policy, approved by a person, then run."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pyadk.agents import LlmAgent
from pyadk.testing import ScriptedModel, TestRunner, function_call
from pyadk.tools.bash_tool import BashToolPolicy, ExecuteBashTool
from pyadk.tools.tool_confirmation import confirmation_answer, confirmation_requests


def bash_runner(tmp_path: Path, *commands: str, policy: BashToolPolicy | None = None):
    calls = [function_call("execute_bash", {"command": c}) for c in commands]
    model = ScriptedModel([*calls, "done"])
    tool = ExecuteBashTool(workspace=tmp_path, policy=policy)
    return TestRunner(LlmAgent(name="shell", model=model, tools=[tool])), model


def result(events: list[Any]) -> dict[str, Any]:
    [response] = [r for e in events for r in e.get_function_responses() if r.name == "execute_bash"]
    return response.response


async def approve(runner: TestRunner, events: list[Any], confirmed: bool = True) -> list[Any]:
    [request] = [r for e in events for r in confirmation_requests(e)]
    return await runner.run(confirmation_answer(request, confirmed=confirmed))


async def test_a_command_runs_in_the_workspace_once_approved_without_a_shell(tmp_path: Path):
    runner, model = bash_runner(tmp_path, "echo hello | wc; pwd")
    events = await runner.run("go")
    assert model.call_count == 1  # waiting for the approval, nothing ran
    answered = await approve(runner, events)
    # no shell: the operators are arguments of echo
    assert result(answered) == {
        "stdout": "hello | wc; pwd\n",
        "stderr": "<no stderr captured>",
        "returncode": 0,
    }

    runner, _ = bash_runner(tmp_path, "pwd")
    answered = await approve(runner, await runner.run("go"))
    assert result(answered)["stdout"] == f"{tmp_path}\n"


async def test_a_rejected_command_does_not_run(tmp_path: Path):
    runner, _ = bash_runner(tmp_path, "touch made.txt")
    answered = await approve(runner, await runner.run("go"), confirmed=False)
    assert "rejected" in result(answered)["error"]
    assert not (tmp_path / "made.txt").exists()


async def test_the_policy_refuses_before_anyone_is_asked(tmp_path: Path):
    policy = BashToolPolicy(allowed_command_prefixes=("ls", "git status"), blocked_operators=(";",))
    runner, _ = bash_runner(tmp_path, "lsof", "./ls", "git push", "ls; rm -rf x", policy=policy)
    events = await runner.run("go")
    assert not [r for e in events for r in confirmation_requests(e)]
    errors = [r.response["error"] for e in events for r in e.get_function_responses()]
    assert errors[:3] == ["Command blocked. Permitted prefixes are: ls, git status"] * 3
    assert errors[3] == "Command contains blocked operator: ;"
    assert policy.refusal("ls -la") is None and policy.refusal("git status -s") is None


async def test_timeouts_and_failures_are_error_results(tmp_path: Path):
    policy = BashToolPolicy(timeout_seconds=0.3)
    runner, _ = bash_runner(tmp_path, "sleep 5", policy=policy)
    answered = await approve(runner, await runner.run("go"))
    timed_out = result(answered)
    assert timed_out["error"] == "Command timed out after 0.3 seconds."
    assert timed_out["returncode"] == -9

    runner, _ = bash_runner(tmp_path, "no-such-program-here")
    answered = await approve(runner, await runner.run("go"))
    assert result(answered)["error"].startswith("Execution failed:")

    runner, _ = bash_runner(tmp_path, "ls missing-file")
    answered = await approve(runner, await runner.run("go"))
    listed = result(answered)
    assert listed["returncode"] != 0 and "missing-file" in listed["stderr"]


async def test_resource_limits_apply_to_the_command(tmp_path: Path):
    policy = BashToolPolicy(max_file_size_bytes=1000)
    runner, _ = bash_runner(tmp_path, "dd if=/dev/zero of=big.bin bs=4096 count=4", policy=policy)
    answered = await approve(runner, await runner.run("go"))
    assert result(answered)["returncode"] != 0
    assert (tmp_path / "big.bin").stat().st_size <= 1000
