"""The workflow's tools, called by a model through an LlmAgent as in the pipeline."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from workflow_fakes import ADD_AGENT

from pyadk.agents import LlmAgent
from pyadk.contrib.structured_workflow import schemas
from pyadk.contrib.structured_workflow.tools import (
    run_adk_agent,
    run_shell_command,
    save_implementation_plan,
    save_relevant_modules,
    save_verification_plan,
)
from pyadk.testing import ScriptedModel, TestRunner, function_call


async def call_tool(
    tool: Any, args: dict[str, Any], state: dict[str, Any] | None = None
) -> tuple[dict[str, Any], dict[str, Any], str | None]:
    """(tool result, state after the run, outcome status of the calling agent)."""
    model = ScriptedModel([function_call(tool.__name__, args), "done"])
    runner = TestRunner(LlmAgent(name="caller", model=model, tools=[tool]), state=state)
    events = await runner.run("go")
    [response] = [r for e in events for r in e.get_function_responses()]
    final_state = await runner.state()
    outcome = final_state.get("outcome:caller", {}).get("status")
    return dict(response.response or {}), final_state, outcome


async def test_shell_runs_in_the_workspace(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("LoopAgent here\n", encoding="utf-8")
    result, _, outcome = await call_tool(
        run_shell_command,
        {"command": "pwd; grep -n LoopAgent notes.txt"},
        {"workspace_dir": str(tmp_path)},
    )
    assert result["status"] == "ok" and result["exit_code"] == 0
    assert result["stdout"] == f"{tmp_path}\n1:LoopAgent here\n"
    assert outcome is None  # success: no outcome event recorded


async def test_shell_non_zero_exit_is_not_a_tool_failure(tmp_path: Path) -> None:
    result, _, outcome = await call_tool(
        run_shell_command, {"command": "grep nothing-here -r ."}, {"workspace_dir": str(tmp_path)}
    )
    assert result["status"] == "ok" and result["exit_code"] == 1
    assert outcome is None


async def test_shell_cwd_cannot_leave_the_workspace(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "sub").mkdir()
    result, _, _ = await call_tool(
        run_shell_command, {"command": "pwd", "cwd": "sub"}, {"workspace_dir": str(workspace)}
    )
    assert result["stdout"].strip() == str(workspace / "sub")
    result, _, outcome = await call_tool(
        run_shell_command, {"command": "pwd", "cwd": "../"}, {"workspace_dir": str(workspace)}
    )
    assert result == {"status": "error", "message": "'../' is outside the workspace."}
    assert outcome == "failure"


async def test_shell_without_a_workspace() -> None:
    result, _, _ = await call_tool(run_shell_command, {"command": "ls"})
    assert result["status"] == "error"
    assert "state['workspace_dir'] is not set" in result["message"]


async def test_shell_timeout_and_output_cap(tmp_path: Path) -> None:
    state = {"workspace_dir": str(tmp_path)}
    result, _, _ = await call_tool(
        run_shell_command, {"command": "echo started; sleep 30", "timeout_seconds": 1}, state
    )
    assert result["status"] == "timeout" and result["stdout"] == "started\n"
    result, _, _ = await call_tool(run_shell_command, {"command": "yes | head -c 100000"}, state)
    assert result["truncated"] is True and len(result["stdout"]) == 8000


async def test_shell_environment_has_no_credentials(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "secret")
    result, _, _ = await call_tool(
        run_shell_command,
        {"command": "echo key=${ANTHROPIC_API_KEY:-none} home=$HOME"},
        {"workspace_dir": str(tmp_path)},
    )
    assert result["stdout"] == f"key=none home={tmp_path}\n"


async def test_run_adk_agent_tool_runs_a_workspace_file(tmp_path: Path) -> None:
    (tmp_path / "agent.py").write_text(ADD_AGENT, encoding="utf-8")
    state = {"workspace_dir": str(tmp_path), "sandbox_model": "echo"}
    result, _, outcome = await call_tool(
        run_adk_agent, {"agent_file": "agent.py", "prompt": "add 1 and 2"}, state
    )
    assert result["status"] == "completed" and result["run_status"] == "ok"
    assert "[adder] echo: add 1 and 2" in result["log"]
    assert outcome is None


async def test_run_adk_agent_tool_refuses_files_outside_the_workspace(tmp_path: Path) -> None:
    state = {"workspace_dir": str(tmp_path), "sandbox_model": "echo"}
    result, _, _ = await call_tool(
        run_adk_agent, {"agent_file": "/etc/hostname", "prompt": "x"}, state
    )
    assert result == {"status": "error", "message": "'/etc/hostname' is outside the workspace."}
    result, _, _ = await call_tool(run_adk_agent, {"agent_file": "nope.py", "prompt": "x"}, state)
    assert result == {"status": "error", "message": "No file 'nope.py' in the workspace."}


async def test_plan_tools_write_state() -> None:
    _, state, _ = await call_tool(save_implementation_plan, {"plan": " 1. tools\n2. agent "})
    assert state[schemas.IMPLEMENTATION_PLAN] == "1. tools\n2. agent"
    args = {"test_prompt": "Add 2 and 3", "expected_behavior": "says 5"}
    _, state, _ = await call_tool(save_verification_plan, args)
    assert state[schemas.VERIFICATION_PLAN] == "Add 2 and 3"
    assert state[schemas.VERIFICATION_EXPECTATION] == "says 5"
    _, state, _ = await call_tool(save_relevant_modules, {"modules": [" pyadk.tools ", ""]})
    assert state[schemas.RELEVANT_MODULES] == ["pyadk.tools"]


async def test_plan_tools_reject_empty_values() -> None:
    result, state, outcome = await call_tool(save_implementation_plan, {"plan": "  "})
    assert result == {"status": "rejected", "message": "The plan is empty."}
    assert schemas.IMPLEMENTATION_PLAN not in state
    assert outcome is None  # a rejection asks the model again; it is not a failure
    result, _, _ = await call_tool(save_relevant_modules, {"modules": []})
    assert result["status"] == "rejected"
