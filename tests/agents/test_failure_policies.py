"""SequentialAgent failure policies: on_failure and finally_agents."""

from __future__ import annotations

import asyncio

import pytest
from agent_support import (
    A_REASON,
    ALL,
    calls,
    failing,
    llm,
    outcome_statuses,
    raising,
)

from pyadk import types
from pyadk.agents import LlmAgent, SequentialAgent
from pyadk.errors import AgentTimeoutError
from pyadk.testing import FunctionModel, ScriptedModel, TestRunner, function_call, simplify_events


def _stored(session) -> list[tuple[str, str]]:
    return [
        (e.author, e.actions.agent_outcome.status.value)
        for e in session.events
        if e.is_outcome_event()
    ]


# -- SequentialAgent: default (google-adk) ----------------------------------------------------


async def test_default_policy_does_not_stop_on_a_failure():
    b = llm("b", "B")
    runner = TestRunner(SequentialAgent(name="seq", sub_agents=[failing(), b]))
    events = await runner.run("go")
    assert simplify_events(events)[-1] == ("b", "B")
    assert outcome_statuses(events) == {"a": "failure", "seq": "failure"}


async def test_default_policy_propagates_exceptions_after_running_finally_agents():
    b, fin = llm("b", "B"), llm("fin", "cleaned up")
    seq = SequentialAgent(name="seq", sub_agents=[raising(), b], finally_agents=[fin])
    runner = TestRunner(seq)
    with pytest.raises(RuntimeError, match="a crashed"):
        await runner.run("go")
    session = await runner.session()
    assert simplify_events(session.events) == [("user", "go"), ("fin", "cleaned up")]
    assert calls(b) == 0
    assert [e.author for e in session.events if e.is_outcome_event()] == ["a", "seq"]
    assert session.state["outcome:seq"]["error_type"] == "RuntimeError"


# -- SequentialAgent: stop --------------------------------------------------------------------


async def test_stop_runs_no_further_children_after_a_failure():
    b, c, fin = llm("b", "B"), llm("c", "C"), llm("fin", "F")
    seq = SequentialAgent(
        name="seq", sub_agents=[failing(), b, c], on_failure="stop", finally_agents=[fin]
    )
    runner = TestRunner(seq)
    events = await runner.run("go")  # no exception
    assert simplify_events(events)[-2:] == [("a", "a gave up"), ("fin", "F")]
    assert calls(b) == calls(c) == 0
    state = await runner.state()
    assert "outcome:b" not in state and "outcome:c" not in state  # not skipped: just not run
    assert state["outcome:seq"] == {"status": "failure", "reason": f"a failure: {A_REASON}"}


async def test_stop_reraises_an_exception_after_the_finally_agents():
    b, fin = llm("b", "B"), llm("fin", "F")
    seq = SequentialAgent(
        name="seq", sub_agents=[raising(), b], on_failure="stop", finally_agents=[fin]
    )
    runner = TestRunner(seq)
    with pytest.raises(RuntimeError, match="a crashed"):
        await runner.run("go")
    session = await runner.session()
    assert simplify_events(session.events)[-1] == ("fin", "F")
    assert calls(b) == 0


async def test_stop_goes_on_after_a_successful_step():
    seq = SequentialAgent(name="seq", sub_agents=[llm("a", "A"), llm("b", "B")], on_failure="stop")
    events = await TestRunner(seq).run("go", run_config=ALL)
    assert simplify_events(events) == [("a", "A"), ("b", "B")]
    assert outcome_statuses(events)["seq"] == "success"


# -- SequentialAgent: skip_rest ---------------------------------------------------------------


async def test_skip_rest_records_remaining_children_as_skipped_naming_the_failed_one():
    b, c, fin = llm("b", "B"), llm("c", "C"), llm("fin", "F")
    seq = SequentialAgent(
        name="seq", sub_agents=[failing(), b, c], on_failure="skip_rest", finally_agents=[fin]
    )
    runner = TestRunner(seq)
    events = await runner.run("go")
    assert calls(b) == calls(c) == 0
    assert [
        (e.author, e.actions.agent_outcome.status.value) for e in events if e.is_outcome_event()
    ] == [
        ("a", "failure"),
        ("b", "skipped"),
        ("c", "skipped"),
        ("seq", "failure"),
    ]
    assert simplify_events(events)[-1] == ("fin", "F")
    state = await runner.state()
    assert state["outcome:b"] == {
        "status": "skipped",
        "reason": f"skipped because a failure: {A_REASON}",
    }
    assert state["outcome:c"] == state["outcome:b"]


async def test_skip_rest_absorbs_an_exception_and_runs_finally_agents():
    b, fin = llm("b", "B"), llm("fin", "F")
    seq = SequentialAgent(
        name="seq", sub_agents=[raising(), b], on_failure="skip_rest", finally_agents=[fin]
    )
    runner = TestRunner(seq)
    events = await runner.run("go")  # no exception
    assert simplify_events(events) == [("fin", "F")]
    assert calls(b) == 0
    state = await runner.state()
    assert state["outcome:a"]["error_type"] == "RuntimeError"
    assert state["outcome:b"]["reason"] == "skipped because a failure: a crashed"
    assert state["outcome:seq"] == {"status": "failure", "reason": "a failure: a crashed"}


# -- SequentialAgent: continue ----------------------------------------------------------------


async def test_continue_absorbs_an_exception_and_runs_the_next_child():
    runner = TestRunner(
        SequentialAgent(name="seq", sub_agents=[raising(), llm("b", "B")], on_failure="continue")
    )
    events = await runner.run("go")
    assert simplify_events(events) == [("b", "B")]
    assert outcome_statuses(events) == {"a": "failure", "seq": "failure"}
    assert (await runner.state())["outcome:seq"]["reason"] == "a failure: a crashed"


async def test_continue_after_a_tool_failure_lets_later_children_run():
    seq = SequentialAgent(
        name="seq", sub_agents=[failing(), failing("b"), llm("c", "C")], on_failure="continue"
    )
    runner = TestRunner(seq)
    events = await runner.run("go")
    assert simplify_events(events)[-1] == ("c", "C")
    reason = (await runner.state())["outcome:seq"]["reason"]
    assert reason == f"a failure: {A_REASON}; b failure: {A_REASON}"


def test_unknown_policy_is_rejected():
    with pytest.raises(ValueError):
        SequentialAgent(name="seq", on_failure="retry")


# -- finally_agents ---------------------------------------------------------------------------


async def test_finally_agents_read_the_outcomes_of_the_steps():
    fin_model = ScriptedModel(["report"])
    fin = LlmAgent(name="fin", model=fin_model, instruction="A was {outcome:a}")
    seq = SequentialAgent(name="seq", sub_agents=[failing()], finally_agents=[fin])
    events = await TestRunner(seq).run("go")
    assert simplify_events(events)[-1] == ("fin", "report")
    assert fin_model.requests[0].system_instruction_text().startswith(f"A was failure: {A_REASON}")


async def test_finally_agents_run_on_cancellation_and_their_events_are_stored():
    started = asyncio.Event()

    async def wait_forever() -> dict:
        """Waits."""
        started.set()
        await asyncio.Event().wait()
        return {}

    worker = llm("worker", function_call("wait_forever"), tools=[wait_forever])
    b, fin = llm("b", "B"), llm("fin", "cleaned up")
    runner = TestRunner(SequentialAgent(name="seq", sub_agents=[worker, b], finally_agents=[fin]))
    task = asyncio.create_task(runner.run("go"))
    await asyncio.wait_for(started.wait(), 5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    session = await runner.session()
    assert simplify_events(session.events)[-1] == ("fin", "cleaned up")
    assert calls(b) == 0
    assert [
        (e.author, e.actions.agent_outcome.status.value)
        for e in session.events
        if e.is_outcome_event()
    ] == [("worker", "cancelled"), ("seq", "cancelled")]


def test_finally_agents_are_part_of_the_agent_tree():
    fin = llm("fin")
    seq = SequentialAgent(name="seq", sub_agents=[llm("a")], finally_agents=[fin])
    root = LlmAgent(name="root", model=ScriptedModel([]), sub_agents=[seq])
    assert root.find_agent("fin") is fin
    assert fin.parent_agent is seq
    with pytest.raises(ValueError, match="two sub-agents named 'a'"):
        SequentialAgent(name="dup", sub_agents=[llm("a")], finally_agents=[llm("a")])


async def test_finally_agents_run_when_the_sequence_times_out():
    async def hang(request):
        await asyncio.Event().wait()

    stuck = LlmAgent(name="stuck", model=FunctionModel(hang))
    fin = llm("fin", "cleaned up")
    seq = SequentialAgent(name="seq", sub_agents=[stuck], finally_agents=[fin], timeout=0.05)
    runner = TestRunner(seq)
    with pytest.raises(AgentTimeoutError, match="Agent 'seq' timed out"):
        await runner.run("go")
    session = await runner.session()
    assert simplify_events(session.events) == [("user", "go"), ("fin", "cleaned up")]
    assert _stored(session) == [("stuck", "cancelled"), ("seq", "timed_out")]


async def test_closing_the_event_stream_early_still_runs_finally_agents():
    b, fin = llm("b", "B"), llm("fin", "cleaned up")
    runner = TestRunner(
        SequentialAgent(name="seq", sub_agents=[llm("a", "A"), b], finally_agents=[fin])
    )
    await runner.session()
    stream = runner.run_async(
        user_id=runner.user_id, session_id=runner.session_id, new_message=types.UserContent("go")
    )
    first = await anext(stream)
    await stream.aclose()  # the caller stops reading after the first answer
    assert first.content.text == "A"
    session = await runner.session()
    assert simplify_events(session.events) == [("user", "go"), ("a", "A"), ("fin", "cleaned up")]
    assert calls(b) == 0
    assert _stored(session)[-1] == ("seq", "cancelled")


async def test_skip_rest_after_a_timed_out_child():
    async def hang(request):
        await asyncio.Event().wait()

    slow = LlmAgent(name="slow", model=FunctionModel(hang), timeout=0.05)
    b = llm("b", "B")
    seq = SequentialAgent(name="seq", sub_agents=[slow, b], on_failure="skip_rest")
    runner = TestRunner(seq)
    await runner.run("go")  # the AgentTimeoutError is absorbed
    assert calls(b) == 0
    state = await runner.state()
    assert state["outcome:b"]["reason"] == (
        "skipped because slow timed_out: Agent 'slow' timed out after 0.05 s."
    )
