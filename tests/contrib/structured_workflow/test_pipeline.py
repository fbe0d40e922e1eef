"""The whole structured workflow end to end, with a FunctionModel playing every LLM step."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from workflow_fakes import ADD_AGENT, BROKEN_AGENT, WorkflowModel, agent_name, fenced

from pyadk.contrib.structured_workflow import (
    create_baseline_workflow_adk_generator,
    create_structured_workflow_adk_generator,
    schemas,
)
from pyadk.contrib.structured_workflow.llm_agents import keeps_the_request
from pyadk.models import LlmRequest
from pyadk.testing import FunctionModel, TestRunner, function_call, simplify_events


def final_text(events: list) -> str:
    """The final verifier's answer (the teardown's state-only event comes after it)."""
    return [e.text for e in events if e.author == "CodeBasedFinalVerifier"][-1]


def requests_of(model: FunctionModel, name: str) -> list[LlmRequest]:
    return [r for r in model.requests if agent_name(r) == name]


async def run(
    tmp_path: Path, script: Any, *, baseline: bool = False, **options: Any
) -> tuple[TestRunner, list, FunctionModel]:
    model = script if isinstance(script, FunctionModel) else FunctionModel(script)
    factory = (
        create_baseline_workflow_adk_generator
        if baseline
        else create_structured_workflow_adk_generator
    )
    agent = factory(
        model,
        sandbox_model="echo",
        output_dir=tmp_path / "out",
        workspace_root=tmp_path / "ws",
        **options,
    )
    runner = TestRunner(agent)
    events = await runner.run("Use the write_file tool to create an agent that adds numbers.")
    return runner, events, model


async def test_success_in_one_iteration(tmp_path: Path) -> None:
    runner, events, _model = await run(tmp_path, WorkflowModel())
    authors = [author for author, _ in simplify_events(events)]
    assert authors == [
        "PromptSanitizerAgent",
        "ModuleSelectorAgent",  # save_relevant_modules call
        "ModuleSelectorAgent",  # its response
        "ModuleSelectorAgent",  # "done"
        "DocstringFetcherAgent",
        *["Planner"] * 5,  # two tool calls, two responses, "planned"
        "CandidateCreator",
        "CodeBasedRunner",
        "RunAnalysisAgent",  # exit_loop call
        "RunAnalysisAgent",  # its response (escalates; no summary)
        "CodeBasedFinalVerifier",
    ]
    state = await runner.state()
    assert state[schemas.USER_REQUEST].startswith("Use the write_file tool")
    assert state[schemas.SANITIZED_REQUEST] == "Build an agent that adds two numbers with a tool."
    assert state[schemas.RELEVANT_MODULES] == [
        "pyadk.agents.llm_agent",
        "pyadk.tools.function_tool",
    ]
    assert state[schemas.IMPLEMENTATION_PLAN] == "1. add tool 2. agent"
    assert state[schemas.VERIFICATION_PLAN] == "Add 2 and 3."
    assert state[schemas.CANDIDATE_RESPONSE] == fenced(ADD_AGENT)
    assert state[schemas.AGENT_CODE] == ADD_AGENT
    assert state[schemas.RUN_STATUS] == "ok" and state[schemas.ITERATION] == 1
    assert "[adder] echo: Add 2 and 3." in state[schemas.RUN_OUTPUT]
    assert state[schemas.VERIFIED] is True
    solution = tmp_path / "out" / "agent.py"
    assert solution.read_text(encoding="utf-8") == ADD_AGENT
    assert final_text(events).startswith(f"Solution written to {solution.resolve()}; verified")
    # Teardown ran last and removed the workspace.
    assert not Path(state[schemas.WORKSPACE_DIR]).exists() and state[schemas.WORKSPACE_REMOVED]


def task_of(request: LlmRequest) -> str:
    """The step's task message: the first user turn of its request."""
    first = request.contents[0]
    assert first.role == "user"
    return first.parts[0].text or ""


async def test_each_step_reads_its_inputs_from_state(tmp_path: Path) -> None:
    _, _, model = await run(tmp_path, WorkflowModel())
    [sanitizer] = requests_of(model, "PromptSanitizerAgent")
    assert task_of(sanitizer).startswith("Request: Use the write_file tool to create")
    [selector] = requests_of(model, "ModuleSelectorAgent")
    assert "- pyadk.agents.loop_agent: LoopAgent" in selector.system_instruction_text()
    assert task_of(selector).startswith("Agent to build: Build an agent that adds two numbers")
    planner = requests_of(model, "Planner")
    assert "# module pyadk.tools.function_tool" in planner[0].system_instruction_text()
    assert task_of(planner[1]) == task_of(planner[0])  # then its own tool turns follow
    assert [c.role for c in planner[1].contents] == ["user", "model", "user"]
    [candidate] = requests_of(model, "CandidateCreator")
    assert "Plan:\n1. add tool 2. agent" in task_of(candidate)
    assert "# module pyadk.tools.function_tool" in candidate.system_instruction_text()
    assert "previous file" not in task_of(candidate)
    [analysis] = requests_of(model, "RunAnalysisAgent")
    task = task_of(analysis)
    assert task.startswith("Test prompt: Add 2 and 3.\nExpected: the sum")
    assert "The run's log:\nstatus: ok (exit code 0)" in task and "echo: Add 2 and 3." in task
    # State-centric: a step sees its task, never what the step before it said.
    for request in model.requests:
        assert "For context:" not in str(request.contents)


async def test_second_iteration_gets_the_failed_attempt(tmp_path: Path) -> None:
    script = WorkflowModel(
        candidates=[fenced(BROKEN_AGENT), fenced(ADD_AGENT)], approvals=[False, True]
    )
    runner, _, model = await run(tmp_path, script)
    state = await runner.state()
    assert state[schemas.ITERATION] == 2 and state[schemas.VERIFIED] is True
    assert state[schemas.AGENT_CODE] == ADD_AGENT
    assert state[schemas.RUN_ANALYSIS] == "The run failed: define the tool before using it."
    second = task_of(requests_of(model, "CandidateCreator")[1])
    assert "Your previous file (attempt 1):" in second
    assert "tools=[missing_tool]" in second
    assert "Its test run (status error):" in second
    assert "NameError: name 'missing_tool' is not defined" in second
    assert "Review: The run failed: define the tool before using it." in second
    assert (tmp_path / "out" / "agent.py").read_text(encoding="utf-8") == ADD_AGENT


async def test_exit_loop_is_refused_while_the_run_fails(tmp_path: Path) -> None:
    # The analysis model approves a broken run: the guard rejects exit_loop, the loop
    # goes on, and the second (working) attempt is accepted.
    script = WorkflowModel(
        candidates=[fenced(BROKEN_AGENT), fenced(ADD_AGENT)], approvals=[True, True]
    )
    runner, events, _ = await run(tmp_path, script)
    rejected = [
        r.response
        for e in events
        for r in e.get_function_responses()
        if r.name == "exit_loop" and r.response.get("status") == "rejected"
    ]
    assert rejected == [
        {
            "status": "rejected",
            "message": "The last test run did not succeed (status error): explain what to fix "
            "instead.",
        }
    ]
    state = await runner.state()
    assert state[schemas.ITERATION] == 2 and state[schemas.VERIFIED] is True


async def test_exhausted_loop_still_writes_reports_and_tears_down(tmp_path: Path) -> None:
    script = WorkflowModel(candidates=[fenced(BROKEN_AGENT)], approvals=[False])
    runner, events, model = await run(tmp_path, script, max_iterations=2)
    state = await runner.state()
    assert state[schemas.ITERATION] == 2 and state[schemas.VERIFIED] is False
    assert len(requests_of(model, "CandidateCreator")) == 2
    assert final_text(events).startswith("Solution written to")
    assert "NOT verified (last run: error) after 2 iteration(s)" in final_text(events)
    assert not Path(state[schemas.WORKSPACE_DIR]).exists()
    assert list((tmp_path / "ws").iterdir()) == []


async def test_exception_in_a_step_still_tears_down(tmp_path: Path) -> None:
    script = WorkflowModel()

    def reply(request: LlmRequest) -> Any:
        if agent_name(request) == "Planner":
            raise RuntimeError("planner model down")
        return script(request)

    with pytest.raises(RuntimeError, match="planner model down"):
        await run(tmp_path, reply)
    assert list((tmp_path / "ws").iterdir()) == []  # the workspace was created, then removed


async def test_cancelled_run_still_tears_down(tmp_path: Path) -> None:
    script = WorkflowModel()
    reached = asyncio.Event()

    async def reply(request: LlmRequest) -> Any:
        if agent_name(request) == "CandidateCreator":
            reached.set()
            await asyncio.Event().wait()  # hangs until cancelled
        return script(request)

    task = asyncio.create_task(run(tmp_path, reply))
    await reached.wait()
    assert len(list((tmp_path / "ws").iterdir())) == 1
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert list((tmp_path / "ws").iterdir()) == []


async def test_baseline_searches_the_source_with_shell_tools(tmp_path: Path) -> None:
    runner, events, model = await run(tmp_path, WorkflowModel(), baseline=True)
    [grep] = [
        r.response
        for e in events
        for r in e.get_function_responses()
        if r.name == "run_shell_command"
    ]
    assert grep["exit_code"] == 0
    assert "adk_source/pyadk/agents/llm_agent.py" in grep["stdout"]
    state = await runner.state()
    assert state[schemas.VERIFIED] is True
    instruction = requests_of(model, "ModuleSelectorAgent")[0].system_instruction_text()
    assert "adk_source/pyadk" in instruction and "- pyadk.agents.loop_agent:" not in instruction


async def test_call_budget_stops_a_looping_selector(tmp_path: Path) -> None:
    script = WorkflowModel()

    def reply(request: LlmRequest) -> Any:
        if agent_name(request) == "ModuleSelectorAgent":
            return function_call("run_shell_command", {"command": "ls"})
        return script(request)

    runner, events, model = await run(tmp_path, reply, baseline=True)
    assert len(requests_of(model, "ModuleSelectorAgent")) == 6
    texts = [e.text for e in events if e.author == "ModuleSelectorAgent" and e.text]
    assert texts == ["(stopped: 6 model calls for this step)"]
    state = await runner.state()  # the fetcher fell back to its defaults; the run went on
    assert state[schemas.RELEVANT_MODULES] == [
        "pyadk.agents.llm_agent",
        "pyadk.tools.function_tool",
    ]
    assert state[schemas.VERIFIED] is True


async def test_sampling_settings_reach_every_model_call(tmp_path: Path) -> None:
    _, _, model = await run(tmp_path, WorkflowModel(), temperature=0.3, seed=7)
    assert model.requests
    assert {(r.config.temperature, r.config.seed) for r in model.requests} == {(0.3, 7)}


def test_factory_options_are_validated() -> None:
    with pytest.raises(ValueError, match="max_iterations must be at least 1"):
        create_structured_workflow_adk_generator(max_iterations=0)
    agent = create_baseline_workflow_adk_generator(max_iterations=4)
    assert agent.knowledge == "tools" and agent.find_agent("ImplementationLoop").max_iterations == 4
    assert [a.name for a in agent.finally_agents] == ["CodeBasedTeardownAgent"]


async def test_a_rewrite_that_loses_the_request_is_undone(tmp_path: Path) -> None:
    script = WorkflowModel()

    def reply(request: LlmRequest) -> Any:
        if agent_name(request) == "PromptSanitizerAgent":
            return "Rewrite the request as a goal."  # a small model echoing its instruction
        return script(request)

    runner, _, model = await run(tmp_path, reply)
    state = await runner.state()
    assert state[schemas.SANITIZED_REQUEST] == state[schemas.USER_REQUEST]
    planner = task_of(requests_of(model, "Planner")[0])
    assert "create an agent that adds numbers" in planner


def test_keeps_the_request() -> None:
    request = "Use the write_file tool to create an agent named greeter that greets users."
    assert keeps_the_request(request, "An agent named greeter that greets users.")
    assert not keeps_the_request(request, "Rewrite the request as a goal.")
    assert not keeps_the_request(request, "")
