"""Agent outcomes: every run ends with a recorded status (and a reason when not a success)."""

from __future__ import annotations

import asyncio

import pytest
from agent_support import ALL, failing_tool, llm

from pyadk import types
from pyadk.agents import LlmAgent, LoopAgent, ParallelAgent, SequentialAgent
from pyadk.errors import AgentTimeoutError
from pyadk.events.outcome import AgentOutcome, OutcomeStatus, outcome_state_key
from pyadk.models.llm_response import LlmResponse
from pyadk.testing import FunctionModel, ScriptedModel, TestRunner, function_call, simplify_events
from pyadk.tools import exit_loop


def ok_tool() -> dict:
    """Always works."""
    return {"status": "success", "value": 42}


def _outcomes(events) -> list[tuple[str, str]]:
    """(agent, status) of every outcome event, in order."""
    return [
        (e.author, e.actions.agent_outcome.status.value) for e in events if e.is_outcome_event()
    ]


# -- success ----------------------------------------------------------------------------------


async def test_success_yields_no_outcome_event_and_no_state_key_by_default():
    runner = TestRunner(llm("a", "hello"))
    events = await runner.run("hi")
    assert simplify_events(events) == [("a", "hello")]
    assert len(events) == 1 and not events[0].is_outcome_event()
    assert outcome_state_key("a") not in await runner.state()


async def test_record_outcomes_all_yields_a_success_event_and_state_key():
    runner = TestRunner(llm("a", "hello"))
    events = await runner.run("hi", run_config=ALL)
    assert len(events) == 2
    last = events[-1]
    assert last.is_outcome_event() and last.author == "a"
    assert last.actions.agent_outcome == AgentOutcome(agent="a", status=OutcomeStatus.SUCCESS)
    assert last.actions.end_of_agent is True
    assert (await runner.state())["outcome:a"] == {"status": "success"}
    stored = (await runner.session()).events
    assert stored[-1].actions.agent_outcome.status == "success"


async def test_record_outcomes_all_records_every_agent_innermost_first():
    seq = SequentialAgent(name="seq", sub_agents=[llm("a", "A"), llm("b", "B")])
    events = await TestRunner(seq).run("go", run_config=ALL)
    assert _outcomes(events) == [("a", "success"), ("b", "success"), ("seq", "success")]


# -- failure ----------------------------------------------------------------------------------


async def test_tool_result_with_status_error_marks_the_agent_failed():
    agent = llm("a", function_call("failing_tool"), "I could not do it", tools=[failing_tool])
    runner = TestRunner(agent)
    events = await runner.run("go")
    assert simplify_events(events)[-1] == ("a", "I could not do it")  # the run went on
    outcome = events[-1].actions.agent_outcome
    assert outcome.status == OutcomeStatus.FAILURE
    assert outcome.reason == "tool failing_tool failed: Simulated failure"
    assert outcome.error_type is None
    assert (await runner.state())["outcome:a"] == {
        "status": "failure",
        "reason": "tool failing_tool failed: Simulated failure",
    }


async def test_tool_result_with_status_success_is_not_a_failure():
    agent = llm("a", function_call("ok_tool"), "42", tools=[ok_tool])
    events = await TestRunner(agent).run("go", run_config=ALL)
    assert _outcomes(events) == [("a", "success")]


async def test_model_error_code_marks_the_agent_failed():
    blocked = LlmResponse(error_code="SAFETY", error_message="blocked by filter")
    runner = TestRunner(llm("a", blocked))
    events = await runner.run("go")
    assert events[0].error_code == "SAFETY"
    outcome = events[-1].actions.agent_outcome
    assert outcome.status == "failure"
    assert outcome.reason == "model error SAFETY: blocked by filter"


async def test_exception_outcome_is_persisted_before_the_exception_reaches_the_caller():
    runner = TestRunner(llm("a", RuntimeError("model exploded")))
    await runner.session()  # creates the session
    seen = []
    with pytest.raises(RuntimeError, match="model exploded"):
        async for event in runner.run_async(
            user_id=runner.user_id,
            session_id=runner.session_id,
            new_message=types.UserContent("go"),
        ):
            seen.append(event)
    assert len(seen) == 1 and seen[0].is_outcome_event()
    outcome = seen[0].actions.agent_outcome
    assert (outcome.status, outcome.reason, outcome.error_type) == (
        "failure",
        "model exploded",
        "RuntimeError",
    )
    session = await runner.session()
    assert session.events[-1].id == seen[0].id
    assert session.state["outcome:a"] == {
        "status": "failure",
        "reason": "model exploded",
        "error_type": "RuntimeError",
    }


async def test_exception_without_message_uses_the_type_name_as_reason():
    runner = TestRunner(llm("a", KeyError()))
    with pytest.raises(KeyError):
        await runner.run("go")
    assert (await runner.state())["outcome:a"]["reason"] == "KeyError"


async def test_composite_agents_fail_when_a_child_fails_and_name_it():
    inner = SequentialAgent(
        name="inner",
        sub_agents=[llm("a", function_call("failing_tool"), "x", tools=[failing_tool])],
    )
    root = SequentialAgent(name="root", sub_agents=[inner, llm("b", "B")])
    runner = TestRunner(root)
    events = await runner.run("go")
    assert _outcomes(events) == [("a", "failure"), ("inner", "failure"), ("root", "failure")]
    state = await runner.state()
    assert (
        state["outcome:inner"]["reason"] == "a failure: tool failing_tool failed: Simulated failure"
    )
    assert state["outcome:root"]["reason"].startswith("inner failure: a failure: tool failing_tool")
    assert "outcome:b" not in state  # b succeeded (default: success not recorded)


async def test_composite_of_successful_children_succeeds_even_after_an_earlier_failed_turn():
    flaky = llm("a", function_call("failing_tool"), "x", "fine", tools=[failing_tool])
    runner = TestRunner(SequentialAgent(name="seq", sub_agents=[flaky]))
    await runner.run("go")
    assert (await runner.state())["outcome:seq"]["status"] == "failure"
    events = await runner.run("again", run_config=ALL)
    assert _outcomes(events) == [("a", "success"), ("seq", "success")]
    assert (await runner.state())["outcome:a"] == {"status": "success"}


# -- skipped / escalated ----------------------------------------------------------------------


async def test_before_agent_callback_returning_content_marks_the_agent_skipped():
    model = ScriptedModel(["never"])

    def skip(callback_context):
        return types.ModelContent("not needed")

    runner = TestRunner(LlmAgent(name="a", model=model, before_agent_callback=skip))
    events = await runner.run("go")
    assert simplify_events(events) == [("a", "not needed")]
    outcome = events[-1].actions.agent_outcome
    assert outcome.status == "skipped"
    assert outcome.reason == "before_agent_callback returned content"
    assert model.call_count == 0
    assert (await runner.state())["outcome:a"]["status"] == "skipped"


async def test_an_after_agent_callback_event_carries_the_outcome_of_a_failed_run():
    def sign_off(callback_context):
        return types.ModelContent(f"(ended: {callback_context.outcome.status.value})")

    agent = llm(
        "a",
        function_call("failing_tool"),
        "It failed.",
        tools=[failing_tool],
        after_agent_callback=sign_off,
    )
    runner = TestRunner(agent)
    events = await runner.run("go")
    assert [e.author for e in events] == ["a", "a", "a", "a"]  # call, result, answer, sign-off
    last = events[-1]
    assert last.content.text == "(ended: failure)"
    assert last.actions.agent_outcome.status == "failure"
    assert last.actions.end_of_agent is True
    assert _outcomes(events) == []  # no content-less outcome event besides it
    assert (await runner.state())["outcome:a"]["status"] == "failure"


async def test_an_after_agent_callback_event_of_a_successful_run_carries_nothing():
    agent = llm(
        "a", "done", after_agent_callback=lambda callback_context: types.ModelContent("bye")
    )
    events = await TestRunner(agent).run("go")
    assert simplify_events(events) == [("a", "done"), ("a", "bye")]
    assert all(e.actions.agent_outcome is None for e in events)


async def test_before_agent_callback_returning_none_is_not_a_skip():
    agent = llm("a", "ran", before_agent_callback=lambda callback_context: None)
    events = await TestRunner(agent).run("go", run_config=ALL)
    assert simplify_events(events) == [("a", "ran")]
    assert _outcomes(events) == [("a", "success")]


async def test_exit_loop_marks_the_calling_agent_escalated():
    critic = llm("critic", function_call("exit_loop"), tools=[exit_loop])
    loop = LoopAgent(name="loop", max_iterations=5, sub_agents=[critic])
    runner = TestRunner(loop)
    await runner.run("go")
    # The loop closes the escalating agent's run right after the escalating event, so its
    # outcome goes straight to the session.
    session = await runner.session()
    assert [e.actions.agent_outcome for e in session.events if e.is_outcome_event()] == [
        AgentOutcome(agent="critic", status=OutcomeStatus.ESCALATED)
    ]
    assert session.state["outcome:critic"] == {"status": "escalated"}


async def test_an_agent_escalating_outside_a_loop_ends_escalated():
    agent = llm("critic", function_call("exit_loop"), tools=[exit_loop])
    runner = TestRunner(agent)
    events = await runner.run("go")
    assert events[-1].actions.agent_outcome == AgentOutcome(
        agent="critic", status=OutcomeStatus.ESCALATED
    )
    assert (await runner.state())["outcome:critic"] == {"status": "escalated"}


async def test_a_loop_ended_by_escalation_succeeds():
    critic = llm("critic", function_call("exit_loop"), tools=[exit_loop])
    loop = LoopAgent(name="loop", max_iterations=5, sub_agents=[critic])
    events = await TestRunner(loop).run("go", run_config=ALL)
    # The escalating agent finishes its run, so its own outcome is yielded too.
    assert _outcomes(events) == [("critic", "escalated"), ("loop", "success")]


# -- cancelled / timed out --------------------------------------------------------------------


async def test_cancelling_the_run_stores_cancelled_outcomes():
    started, release = asyncio.Event(), asyncio.Event()

    async def wait_forever() -> dict:
        """Waits."""
        started.set()
        await release.wait()
        return {"status": "success"}

    worker = llm("worker", function_call("wait_forever"), "done", tools=[wait_forever])
    runner = TestRunner(SequentialAgent(name="seq", sub_agents=[worker, llm("next", "N")]))
    task = asyncio.create_task(runner.run("go"))
    await asyncio.wait_for(started.wait(), 5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task

    session = await runner.session()
    recorded = [e.actions.agent_outcome for e in session.events if e.is_outcome_event()]
    assert [(o.agent, o.status.value) for o in recorded] == [
        ("worker", "cancelled"),
        ("seq", "cancelled"),
    ]
    assert recorded[0].reason == "the run was cancelled before it ended"
    assert session.state["outcome:worker"]["status"] == "cancelled"
    assert session.state["outcome:seq"]["status"] == "cancelled"
    assert "outcome:next" not in session.state


async def test_agent_timeout_ends_the_run_as_timed_out():
    async def hang(request):
        await asyncio.Event().wait()

    runner = TestRunner(LlmAgent(name="slow", model=FunctionModel(hang), timeout=0.05))
    with pytest.raises(AgentTimeoutError, match=r"Agent 'slow' timed out after 0.05 s"):
        await runner.run("go")
    session = await runner.session()
    outcome = session.events[-1].actions.agent_outcome
    assert outcome.status == OutcomeStatus.TIMED_OUT
    assert outcome.error_type == "AgentTimeoutError"
    assert outcome.failed
    assert session.state["outcome:slow"]["status"] == "timed_out"


async def test_timed_out_child_records_cancelled_grandchildren_and_fails_the_parent():
    async def hang(request):
        await asyncio.Event().wait()

    stuck = LlmAgent(name="stuck", model=FunctionModel(hang))
    inner = SequentialAgent(name="inner", sub_agents=[stuck], timeout=0.05)
    root = SequentialAgent(
        name="root", sub_agents=[inner, llm("after", "A")], on_failure="continue"
    )
    runner = TestRunner(root)
    events = await runner.run("go")  # continue absorbs the AgentTimeoutError
    assert simplify_events(events) == [("after", "A")]
    state = await runner.state()
    assert state["outcome:stuck"]["status"] == "cancelled"
    assert state["outcome:inner"]["status"] == "timed_out"
    assert state["outcome:root"] == {
        "status": "failure",
        "reason": "inner timed_out: Agent 'inner' timed out after 0.05 s.",
    }


def test_timeout_must_be_positive():
    with pytest.raises(ValueError):
        LlmAgent(name="a", model=ScriptedModel([]), timeout=0)


def test_outcome_helpers():
    failure = AgentOutcome(agent="a", status="failure", reason="boom", error_type="ValueError")
    assert failure.failed and failure.describe() == "failure: boom"
    assert failure.to_state() == {"status": "failure", "reason": "boom", "error_type": "ValueError"}
    assert AgentOutcome.from_state("a", failure.to_state()) == failure
    assert AgentOutcome.from_state("a", "failure") is None
    assert AgentOutcome.from_state("a", {"status": "bogus"}) is None
    for status in ("success", "skipped", "escalated", "cancelled"):
        assert not AgentOutcome(agent="a", status=status).failed
    assert AgentOutcome(agent="a", status="timed_out").failed


async def test_parallel_agent_records_each_branch_outcome():
    par = ParallelAgent(
        name="par",
        sub_agents=[
            llm("x", "X"),
            llm("y", function_call("failing_tool"), "Y", tools=[failing_tool]),
        ],
    )
    runner = TestRunner(par)
    events = await runner.run("go", run_config=ALL)
    outcomes = dict(_outcomes(events))
    assert outcomes == {"x": "success", "y": "failure", "par": "failure"}
    assert _outcomes(events)[-1] == ("par", "failure")
    by_agent = {e.author: e for e in events if e.is_outcome_event()}
    assert by_agent["x"].branch == "par.x" and by_agent["y"].branch == "par.y"
    assert (await runner.state())["outcome:par"]["reason"].startswith(
        "y failure: tool failing_tool"
    )


async def test_after_agent_callback_sees_a_timed_out_outcome():
    seen = []

    async def hang(request):
        await asyncio.Event().wait()

    agent = LlmAgent(
        name="slow",
        model=FunctionModel(hang),
        timeout=0.05,
        after_agent_callback=lambda callback_context: seen.append(callback_context.outcome),
    )
    with pytest.raises(AgentTimeoutError):
        await TestRunner(agent).run("go")
    assert [(o.status.value, o.error_type) for o in seen] == [("timed_out", "AgentTimeoutError")]


async def test_cancelling_an_agent_that_has_a_timeout_records_cancelled_not_timed_out():
    started = asyncio.Event()

    async def hang(request):
        started.set()
        await asyncio.Event().wait()

    seq = SequentialAgent(
        name="seq", sub_agents=[LlmAgent(name="x", model=FunctionModel(hang))], timeout=30
    )
    runner = TestRunner(seq)
    task = asyncio.create_task(runner.run("go"))
    await asyncio.wait_for(started.wait(), 5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    state = await runner.state()
    assert state["outcome:x"]["status"] == "cancelled"
    assert state["outcome:seq"]["status"] == "cancelled"
