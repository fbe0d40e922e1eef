"""ParallelAgent failure modes: fail_fast (default) and collect."""

from __future__ import annotations

import asyncio

import pytest
from agent_support import ALL, failing_tool

from pyadk.agents import LlmAgent, ParallelAgent, SequentialAgent
from pyadk.errors import AgentTimeoutError
from pyadk.testing import FunctionModel, ScriptedModel, TestRunner, function_call, simplify_events


def _stored_outcomes(session) -> dict[str, dict]:
    return {
        e.author: e.actions.agent_outcome.to_state() for e in session.events if e.is_outcome_event()
    }


def _crashing(name: str, before_crash: asyncio.Event) -> LlmAgent:
    """A branch whose model waits for ``before_crash`` and then raises."""

    async def crash(request):
        await before_crash.wait()
        raise RuntimeError(f"{name} crashed")

    return LlmAgent(name=name, model=FunctionModel(crash))


# -- fail_fast --------------------------------------------------------------------------------


async def test_fail_fast_cancels_the_other_branches_and_propagates_the_exception():
    slow_started = asyncio.Event()

    async def slow(request):
        slow_started.set()
        await asyncio.Event().wait()

    slow_agent = LlmAgent(name="slow", model=FunctionModel(slow))
    par = ParallelAgent(name="par", sub_agents=[_crashing("boom", slow_started), slow_agent])
    after = LlmAgent(name="after", model=ScriptedModel(["never"]))
    runner = TestRunner(SequentialAgent(name="root", sub_agents=[par, after]))
    with pytest.raises(RuntimeError, match="boom crashed"):
        await runner.run("go")

    session = await runner.session()
    outcomes = _stored_outcomes(session)
    assert outcomes["boom"] == {
        "status": "failure",
        "reason": "boom crashed",
        "error_type": "RuntimeError",
    }
    assert outcomes["slow"]["status"] == "cancelled"
    assert outcomes["par"]["status"] == "failure"
    assert outcomes["par"]["error_type"] == "RuntimeError"
    assert outcomes["root"]["status"] == "failure"
    assert after.model.call_count == 0
    stored_slow = next(e for e in session.events if e.author == "slow")
    assert stored_slow.branch == "par.slow"


async def test_fail_fast_is_the_default():
    assert ParallelAgent(name="par").failure == "fail_fast"
    with pytest.raises(ValueError):
        ParallelAgent(name="par", failure="ignore")


async def test_fail_fast_does_not_cancel_siblings_for_a_failure_without_exception():
    bad = LlmAgent(
        name="bad",
        model=ScriptedModel([function_call("failing_tool"), "bad done"]),
        tools=[failing_tool],
    )
    good = LlmAgent(name="good", model=ScriptedModel(["good done"]))
    events = await TestRunner(ParallelAgent(name="par", sub_agents=[bad, good])).run("go")
    texts = {t for _, t in simplify_events(events)}
    assert {"bad done", "good done"} <= texts
    assert events[-1].actions.agent_outcome.status == "failure"


async def test_fail_fast_branch_timeout_cancels_the_siblings():
    async def hang(request):
        await asyncio.Event().wait()

    late = LlmAgent(name="late", model=FunctionModel(hang), timeout=0.05)
    other = LlmAgent(name="other", model=FunctionModel(hang))
    runner = TestRunner(ParallelAgent(name="par", sub_agents=[late, other]))
    with pytest.raises(AgentTimeoutError):
        await runner.run("go")
    outcomes = _stored_outcomes(await runner.session())
    assert outcomes["late"]["status"] == "timed_out"
    assert outcomes["other"]["status"] == "cancelled"
    # The branch's timeout propagated: the parallel agent failed with that error.
    assert outcomes["par"]["status"] == "failure"
    assert outcomes["par"]["error_type"] == "AgentTimeoutError"


async def test_cancelling_a_parallel_run_records_every_branch_as_cancelled():
    both_started = asyncio.Barrier(3)

    async def wait_forever(request):
        await both_started.wait()
        await asyncio.Event().wait()

    par = ParallelAgent(
        name="par",
        sub_agents=[LlmAgent(name=n, model=FunctionModel(wait_forever)) for n in ("x", "y")],
        failure="collect",
    )
    fin = LlmAgent(name="fin", model=ScriptedModel(["cleaned up"]))
    runner = TestRunner(SequentialAgent(name="root", sub_agents=[par], finally_agents=[fin]))
    task = asyncio.create_task(runner.run("go"))
    await asyncio.wait_for(both_started.wait(), 5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    session = await runner.session()
    outcomes = _stored_outcomes(session)
    assert {name: o["status"] for name, o in outcomes.items()} == {
        "x": "cancelled",
        "y": "cancelled",
        "par": "cancelled",
        "root": "cancelled",
    }
    assert simplify_events(session.events)[-1] == ("fin", "cleaned up")


# -- collect ----------------------------------------------------------------------------------


async def test_collect_keeps_the_other_branches_results_and_state():
    crashed = asyncio.Event()

    def mark_crashed(callback_context):
        crashed.set()  # boom's run has failed (after callbacks run before it re-raises)

    boom = LlmAgent(name="boom", model=FunctionModel(_raise_now), after_agent_callback=mark_crashed)

    async def answer_after_crash(request):
        await crashed.wait()  # proves the branch goes on after its sibling failed
        return "fine"

    ok = LlmAgent(name="ok", model=FunctionModel(answer_after_crash), output_key="ok_result")
    par = ParallelAgent(name="par", sub_agents=[boom, ok], failure="collect")
    runner = TestRunner(par)
    events = await runner.run("go", run_config=ALL)  # no exception

    assert simplify_events(events) == [("ok", "fine")]
    assert events[-1].is_outcome_event() and events[-1].author == "par"
    session = await runner.session()
    assert session.state["ok_result"] == "fine"
    outcomes = _stored_outcomes(session)
    assert outcomes["ok"] == {"status": "success"}
    assert outcomes["boom"] == {
        "status": "failure",
        "reason": "boom crashed now",
        "error_type": "RuntimeError",
    }
    assert outcomes["par"] == {"status": "failure", "reason": "boom failure: boom crashed now"}


def _raise_now(request):
    raise RuntimeError("boom crashed now")


async def test_collect_reports_every_failed_branch():
    bad = LlmAgent(
        name="bad",
        model=ScriptedModel([function_call("failing_tool"), "bad done"]),
        tools=[failing_tool],
    )
    par = ParallelAgent(
        name="par",
        sub_agents=[
            _crashing("boom", _set_event()),
            bad,
            LlmAgent(name="good", model=ScriptedModel(["ok"])),
        ],
        failure="collect",
    )
    runner = TestRunner(par)
    events = await runner.run("go")
    assert ("good", "ok") in simplify_events(events)
    reason = (await runner.state())["outcome:par"]["reason"]
    assert "boom failure: boom crashed" in reason
    assert "bad failure: tool failing_tool failed: Simulated failure" in reason
    assert "good" not in reason


def _set_event() -> asyncio.Event:
    event = asyncio.Event()
    event.set()
    return event


async def test_collect_with_every_branch_succeeding_is_a_success():
    par = ParallelAgent(
        name="par",
        sub_agents=[LlmAgent(name=n, model=ScriptedModel([n.upper()])) for n in ("x", "y")],
        failure="collect",
    )
    events = await TestRunner(par).run("go", run_config=ALL)
    assert {t for _, t in simplify_events(events)} == {"X", "Y"}
    assert events[-1].actions.agent_outcome.status == "success"


async def test_collect_records_a_timed_out_branch_and_keeps_the_rest():
    async def hang(request):
        await asyncio.Event().wait()

    late = LlmAgent(name="late", model=FunctionModel(hang), timeout=0.05)
    ok = LlmAgent(name="ok", model=ScriptedModel(["fine"]), output_key="ok_result")
    runner = TestRunner(ParallelAgent(name="par", sub_agents=[late, ok], failure="collect"))
    events = await runner.run("go")
    assert simplify_events(events) == [("ok", "fine")]
    state = await runner.state()
    assert state["ok_result"] == "fine"
    assert state["outcome:late"]["status"] == "timed_out"
    assert state["outcome:par"]["reason"].startswith("late timed_out: Agent 'late' timed out")


async def test_collect_failure_stops_a_sequence_with_stop_policy():
    after = LlmAgent(name="after", model=ScriptedModel(["never"]))
    par = ParallelAgent(
        name="par",
        sub_agents=[
            _crashing("boom", _set_event()),
            LlmAgent(name="ok", model=ScriptedModel(["ok"])),
        ],
        failure="collect",
    )
    seq = SequentialAgent(name="seq", sub_agents=[par, after], on_failure="stop")
    runner = TestRunner(seq)
    await runner.run("go")
    assert after.model.call_count == 0
    assert (await runner.state())["outcome:seq"]["reason"].startswith("par failure: boom failure")
