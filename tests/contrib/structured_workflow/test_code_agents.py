"""The code-based agents of the workflow, one by one."""

from __future__ import annotations

from pathlib import Path

import pytest
from workflow_fakes import ADD_AGENT, fenced

from pyadk.agents import LlmAgent, SequentialAgent
from pyadk.contrib.structured_workflow import schemas
from pyadk.contrib.structured_workflow.agents import (
    RUN_OUTPUT_CHARS,
    WORKSPACE_MARKER,
    CodeBasedFinalVerifier,
    CodeBasedRunner,
    CodeBasedTeardownAgent,
    DocstringFetcherAgent,
    SetupAgentCodeBased,
)
from pyadk.contrib.structured_workflow.index import load_index
from pyadk.testing import ScriptedModel, TestRunner, function_call
from pyadk.tools import exit_loop


async def test_setup_creates_a_workspace_and_records_the_request(tmp_path: Path) -> None:
    runner = TestRunner(
        SetupAgentCodeBased(name="setup", workspace_root=str(tmp_path), sandbox_model="echo"),
        state={schemas.AGENT_CODE: "old code", schemas.ITERATION: 3},
    )
    events = await runner.run("Build an adder agent")
    state = await runner.state()
    workspace = Path(state[schemas.WORKSPACE_DIR])
    assert workspace.parent == tmp_path.resolve() and workspace.name.startswith("task_")
    assert (workspace / WORKSPACE_MARKER).is_file()
    assert state[schemas.USER_REQUEST] == state[schemas.SANITIZED_REQUEST] == "Build an adder agent"
    assert state["sandbox_model"] == "echo"
    # A second request in the same session starts clean.
    assert state[schemas.AGENT_CODE] == "" and state[schemas.ITERATION] == 0
    assert [e.content for e in events] == [None]  # state only: nothing for the models to read


async def test_setup_workspaces_are_unique_and_root_can_come_from_state(tmp_path: Path) -> None:
    agent = SetupAgentCodeBased(name="setup")
    first = TestRunner(agent, state={"workspace_root": str(tmp_path)}, session_id="a")
    second = TestRunner(agent, state={"workspace_root": str(tmp_path)}, session_id="b")
    await first.run("one")
    await second.run("two")
    dirs = {(await r.state())[schemas.WORKSPACE_DIR] for r in (first, second)}
    assert len(dirs) == 2 and all(Path(d).parent == tmp_path.resolve() for d in dirs)


async def test_setup_without_a_request_fails(tmp_path: Path) -> None:
    runner = TestRunner(SetupAgentCodeBased(name="setup", workspace_root=str(tmp_path)))
    with pytest.raises(ValueError, match="setup: the user message has no text"):
        await runner.run("   ")
    assert list(tmp_path.iterdir()) == []


async def test_setup_copies_the_source_for_tool_based_search(tmp_path: Path) -> None:
    agent = SetupAgentCodeBased(name="setup", workspace_root=str(tmp_path), copy_adk_source=True)
    runner = TestRunner(agent)
    await runner.run("go")
    source = Path((await runner.state())[schemas.WORKSPACE_DIR]) / "adk_source" / "pyadk"
    assert (source / "agents" / "loop_agent.py").is_file()
    assert not list(source.rglob("__pycache__"))


async def fetch(agent: DocstringFetcherAgent, selected: object) -> tuple[dict, list]:
    runner = TestRunner(agent, state={schemas.RELEVANT_MODULES: selected})
    events = await runner.run("go")
    return await runner.state(), events


async def test_fetcher_documents_the_selected_index_modules() -> None:
    agent = DocstringFetcherAgent(name="fetcher", index=load_index())
    state, events = await fetch(agent, ["pyadk.agents.LoopAgent", "pyadk.tools.exit_loop_tool"])
    assert state[schemas.RELEVANT_MODULES] == [
        "pyadk.agents.loop_agent",
        "pyadk.tools.exit_loop_tool",
    ]
    docs = state[schemas.MODULE_DOCS]
    assert "# module pyadk.agents.loop_agent" in docs and "def exit_loop(" in docs
    assert events[0].text == (
        "Fetched the documentation of pyadk.agents.loop_agent, pyadk.tools.exit_loop_tool."
    )


async def test_fetcher_reads_a_text_answer_and_falls_back_to_defaults() -> None:
    agent = DocstringFetcherAgent(name="fetcher", index=load_index())
    state, _ = await fetch(agent, "pyadk.agents.sequential_agent, pyadk.events")
    assert state[schemas.RELEVANT_MODULES] == ["pyadk.agents.sequential_agent", "pyadk.events"]
    state, _ = await fetch(agent, ["numpy", "requests"])
    assert state[schemas.RELEVANT_MODULES] == load_index().defaults
    state, _ = await fetch(agent, None)  # the selector never saved anything
    assert state[schemas.RELEVANT_MODULES] == load_index().defaults


async def test_fetcher_without_index_skips_unimportable_modules() -> None:
    agent = DocstringFetcherAgent(name="fetcher", max_chars=2000)
    state, _ = await fetch(agent, ["pyadk.nonexistent", "pyadk.tools.exit_loop_tool", "os"])
    assert state[schemas.RELEVANT_MODULES] == ["pyadk.tools.exit_loop_tool"]
    state, _ = await fetch(agent, ["pyadk.nonexistent"])
    assert state[schemas.RELEVANT_MODULES] == agent.default_modules
    assert len(state[schemas.MODULE_DOCS]) <= 2000 + 2


async def run_runner(tmp_path: Path, state: dict) -> tuple[dict, str]:
    agent = CodeBasedRunner(name="runner", sandbox_model="echo")
    runner = TestRunner(agent, state={schemas.WORKSPACE_DIR: str(tmp_path), **state})
    events = await runner.run("go")
    return await runner.state(), events[-1].text or ""


async def test_runner_extracts_saves_and_runs_the_candidate(tmp_path: Path) -> None:
    state, text = await run_runner(
        tmp_path,
        {
            schemas.CANDIDATE_RESPONSE: fenced(ADD_AGENT),
            schemas.VERIFICATION_PLAN: "Add 4 and 5",
            schemas.ITERATION: 1,
        },
    )
    assert state[schemas.AGENT_CODE] == ADD_AGENT
    assert (tmp_path / "agent.py").read_text(encoding="utf-8") == ADD_AGENT
    assert state[schemas.RUN_STATUS] == "ok" and state[schemas.ITERATION] == 2
    assert state[schemas.RUN_OUTPUT].startswith("status: ok (exit code 0)")
    assert "[adder] echo: Add 4 and 5" in state[schemas.RUN_OUTPUT]
    assert text == "Test run 2:\n" + state[schemas.RUN_OUTPUT]  # the next agent reads it


async def test_runner_prompt_falls_back_to_the_request(tmp_path: Path) -> None:
    state, _ = await run_runner(
        tmp_path,
        {schemas.CANDIDATE_RESPONSE: fenced(ADD_AGENT), schemas.SANITIZED_REQUEST: "Sum 1 and 1"},
    )
    assert "[user] Sum 1 and 1" in state[schemas.RUN_OUTPUT]


async def test_runner_without_code(tmp_path: Path) -> None:
    state, text = await run_runner(
        tmp_path, {schemas.CANDIDATE_RESPONSE: "Sorry, no idea.", schemas.AGENT_CODE: "previous"}
    )
    assert state[schemas.RUN_STATUS] == "no_code" and state[schemas.ITERATION] == 1
    assert state[schemas.AGENT_CODE] == "previous"  # the last real attempt is kept
    assert "has no Python code block" in text
    assert not (tmp_path / "agent.py").exists()


async def test_runner_syntax_error_is_not_run(tmp_path: Path) -> None:
    state, _ = await run_runner(tmp_path, {schemas.CANDIDATE_RESPONSE: "```python\ndef f(:\n```"})
    assert state[schemas.RUN_STATUS] == "syntax_error"
    assert state[schemas.AGENT_CODE] == "def f(:\n"
    assert "SyntaxError" in state[schemas.RUN_OUTPUT]
    assert not (tmp_path / "agent.py").exists()


async def test_runner_clips_long_logs(tmp_path: Path) -> None:
    code = "print('y' * 50_000)\n" + ADD_AGENT
    state, _ = await run_runner(tmp_path, {schemas.CANDIDATE_RESPONSE: fenced(code)})
    output = state[schemas.RUN_OUTPUT]
    assert len(output) <= RUN_OUTPUT_CHARS and "characters cut" in output
    assert output.startswith("status: ok") and output.endswith("[output truncated]")


def analysis(approve: bool) -> LlmAgent:
    replies = [function_call("exit_loop")] if approve else ["The run failed."]
    return LlmAgent(name="RunAnalysisAgent", model=ScriptedModel(replies), tools=[exit_loop])


async def verify(tmp_path: Path, approve: bool, state: dict) -> tuple[dict, str]:
    pipeline = SequentialAgent(
        name="p", sub_agents=[analysis(approve), CodeBasedFinalVerifier(name="final")]
    )
    runner = TestRunner(pipeline, state=state)
    events = await runner.run("go")
    return await runner.state(), next(e.text for e in events if e.author == "final") or ""


async def test_final_verifier_writes_the_solution(tmp_path: Path) -> None:
    out = tmp_path / "out"
    state, text = await verify(
        tmp_path,
        True,
        {schemas.AGENT_CODE: ADD_AGENT, schemas.OUTPUT_DIR: str(out), schemas.ITERATION: 2},
    )
    assert (out / "agent.py").read_text(encoding="utf-8") == ADD_AGENT
    assert state[schemas.SOLUTION_PATH] == str((out / "agent.py").resolve())
    assert state[schemas.VERIFIED] is True
    assert text.startswith(f"Solution written to {(out / 'agent.py').resolve()}; verified")
    assert "after 2 iteration(s)" in text and text.endswith(f"```python\n{ADD_AGENT.rstrip()}\n```")


async def test_final_verifier_unverified_and_without_output_dir(tmp_path: Path) -> None:
    state, text = await verify(
        tmp_path, False, {schemas.AGENT_CODE: ADD_AGENT, schemas.RUN_STATUS: "error"}
    )
    assert state[schemas.VERIFIED] is False and schemas.SOLUTION_PATH not in state
    assert text.startswith("Solution not written (no output_dir); NOT verified (last run: error)")


async def test_final_verifier_without_code(tmp_path: Path) -> None:
    state, text = await verify(tmp_path, True, {schemas.ITERATION: 3})
    assert text == "No solution: no code was produced in 3 iteration(s)."
    assert state[schemas.VERIFIED] is False


async def test_teardown_removes_only_marked_workspaces(tmp_path: Path) -> None:
    marked = tmp_path / "task_x"
    marked.mkdir()
    (marked / WORKSPACE_MARKER).write_text("", encoding="utf-8")
    (marked / "agent.py").write_text("x = 1", encoding="utf-8")
    runner = TestRunner(
        CodeBasedTeardownAgent(name="teardown"), state={schemas.WORKSPACE_DIR: str(marked)}
    )
    await runner.run("go")
    assert not marked.exists() and (await runner.state())[schemas.WORKSPACE_REMOVED] is True

    precious = tmp_path / "precious"
    precious.mkdir()
    runner = TestRunner(
        CodeBasedTeardownAgent(name="teardown"), state={schemas.WORKSPACE_DIR: str(precious)}
    )
    await runner.run("go")
    assert precious.is_dir() and (await runner.state())[schemas.WORKSPACE_REMOVED] is False


async def test_teardown_keep_workspace_and_nothing_to_do(tmp_path: Path) -> None:
    kept = tmp_path / "task_y"
    kept.mkdir()
    (kept / WORKSPACE_MARKER).write_text("", encoding="utf-8")
    agent = CodeBasedTeardownAgent(name="teardown", keep_workspace=True)
    assert await TestRunner(agent, state={schemas.WORKSPACE_DIR: str(kept)}).run("go") == []
    assert kept.is_dir()
    assert await TestRunner(CodeBasedTeardownAgent(name="teardown")).run("go") == []


async def test_runner_remembers_the_last_code_that_ran(tmp_path: Path) -> None:
    state, _ = await run_runner(tmp_path, {schemas.CANDIDATE_RESPONSE: fenced(ADD_AGENT)})
    assert state[schemas.LAST_WORKING_CODE] == ADD_AGENT
    state, _ = await run_runner(
        tmp_path,
        {
            schemas.CANDIDATE_RESPONSE: "```python\nraise SystemExit(3)\n```",
            schemas.LAST_WORKING_CODE: "x = 1\n",
        },
    )
    assert state[schemas.RUN_STATUS] == "error"
    assert state[schemas.LAST_WORKING_CODE] == "x = 1\n"  # unchanged by a failed run


async def test_final_verifier_falls_back_to_the_last_code_that_ran(tmp_path: Path) -> None:
    out = tmp_path / "out"
    state, text = await verify(
        tmp_path,
        False,
        {
            schemas.AGENT_CODE: "def broken(:\n",
            schemas.LAST_WORKING_CODE: ADD_AGENT,
            schemas.RUN_STATUS: "syntax_error",
            schemas.OUTPUT_DIR: str(out),
        },
    )
    assert (out / "agent.py").read_text(encoding="utf-8") == ADD_AGENT
    assert "NOT verified (last run: syntax_error); this is the latest code whose test run" in text
    # An accepted run always wins over the fallback.
    state, _ = await verify(
        tmp_path,
        True,
        {
            schemas.AGENT_CODE: "x = 2\n",
            schemas.LAST_WORKING_CODE: ADD_AGENT,
            schemas.OUTPUT_DIR: str(out),
        },
    )
    assert (out / "agent.py").read_text(encoding="utf-8") == "x = 2\n" and state[schemas.VERIFIED]


async def test_runner_needs_a_workspace() -> None:
    runner = TestRunner(
        CodeBasedRunner(name="runner", sandbox_model="echo"),
        state={schemas.CANDIDATE_RESPONSE: fenced(ADD_AGENT)},
    )
    with pytest.raises(ValueError, match="runner: no workspace_dir in state"):
        await runner.run("go")
