"""LoopAgent: escalation ends only the nearest loop; on_failure policies; max_iterations."""

from __future__ import annotations

import pytest

from pyadk.agents import LlmAgent, LoopAgent, SequentialAgent
from pyadk.testing import ScriptedModel, TestRunner, function_call, simplify_events
from pyadk.tools import exit_loop

A_REASON = "tool failing_tool failed: Simulated failure"


def failing_tool() -> dict:
    """Always fails."""
    return {"status": "error", "message": "Simulated failure"}


def _llm(name: str, *replies, **kwargs) -> LlmAgent:
    return LlmAgent(name=name, model=ScriptedModel(list(replies)), **kwargs)


def _failing(name: str = "a") -> LlmAgent:
    return _llm(name, function_call("failing_tool"), f"{name} gave up", tools=[failing_tool])


def _raising(name: str = "a") -> LlmAgent:
    return _llm(name, RuntimeError(f"{name} crashed"))


def _calls(agent: LlmAgent) -> int:
    return agent.model.call_count


def _outcomes(events) -> dict[str, str]:
    return {e.author: e.actions.agent_outcome.status.value for e in events if e.is_outcome_event()}


async def test_escalation_ends_only_the_nearest_loop():
    worker = _llm("worker", "w1", "w2")
    critic = _llm(
        "critic", function_call("exit_loop"), function_call("exit_loop"), tools=[exit_loop]
    )
    inner = LoopAgent(name="inner", max_iterations=5, sub_agents=[worker, critic])
    after = _llm("after", "after 1", "after 2")
    outer = LoopAgent(name="outer", max_iterations=2, sub_agents=[inner, after])
    events = await TestRunner(outer).run("go")
    assert simplify_events(events) == [
        ("worker", "w1"),
        ("critic", "call:exit_loop({})"),
        ("critic", "response:exit_loop({'status': 'loop exited'})"),
        ("after", "after 1"),
        ("worker", "w2"),
        ("critic", "call:exit_loop({})"),
        ("critic", "response:exit_loop({'status': 'loop exited'})"),
        ("after", "after 2"),
    ]


async def test_escalation_in_a_nested_sequence_ends_the_enclosing_loop():
    critic = _llm("critic", function_call("exit_loop"), tools=[exit_loop])
    step = SequentialAgent(name="step", sub_agents=[critic, _llm("never", "no")])
    loop = LoopAgent(name="loop", max_iterations=3, sub_agents=[step])
    tail = _llm("tail", "tail ran")
    events = await TestRunner(SequentialAgent(name="root", sub_agents=[loop, tail])).run("go")
    assert simplify_events(events)[-1] == ("tail", "tail ran")
    assert tail.model.call_count == 1 and critic.model.call_count == 1


async def test_loop_stops_after_max_iterations():
    loop = LoopAgent(name="loop", max_iterations=2, sub_agents=[_llm("a", "1", "2", "3")])
    events = await TestRunner(loop).run("go")
    assert simplify_events(events) == [("a", "1"), ("a", "2")]


async def test_loop_default_policy_keeps_looping_after_failures():
    flaky = _llm("a", function_call("failing_tool"), "x", "fine", tools=[failing_tool])
    loop = LoopAgent(name="loop", max_iterations=2, sub_agents=[flaky, _llm("b", "b1", "b2")])
    runner = TestRunner(loop)
    events = await runner.run("go")
    assert [t for _, t in simplify_events(events) if t in ("b1", "b2", "fine")] == [
        "b1",
        "fine",
        "b2",
    ]
    # the latest outcome of a is the second iteration's success, so the loop succeeded
    state = await runner.state()
    assert state["outcome:a"] == {"status": "success"}
    assert "outcome:loop" not in state


async def test_loop_stop_policy_ends_the_loop_at_the_failed_step():
    b = _llm("b", "B")
    loop = LoopAgent(name="loop", max_iterations=3, sub_agents=[_failing(), b], on_failure="stop")
    runner = TestRunner(loop)
    events = await runner.run("go")
    assert _calls(b) == 0
    assert _outcomes(events) == {"a": "failure", "loop": "failure"}
    assert (await runner.state())["outcome:loop"]["reason"] == f"a failure: {A_REASON}"


async def test_loop_stop_policy_reraises_exceptions():
    loop = LoopAgent(name="loop", max_iterations=3, sub_agents=[_raising()], on_failure="stop")
    with pytest.raises(RuntimeError, match="a crashed"):
        await TestRunner(loop).run("go")


async def test_loop_skip_rest_skips_the_rest_of_the_iteration_and_ends():
    b, c = _llm("b", "B"), _llm("c", "C")
    loop = LoopAgent(
        name="loop", max_iterations=3, sub_agents=[_raising(), b, c], on_failure="skip_rest"
    )
    runner = TestRunner(loop)
    events = await runner.run("go")  # absorbed
    assert _calls(b) == _calls(c) == 0
    assert _outcomes(events) == {"a": "failure", "b": "skipped", "c": "skipped", "loop": "failure"}
    assert (await runner.state())["outcome:c"]["reason"] == "skipped because a failure: a crashed"


async def test_loop_continue_policy_goes_on_through_every_iteration():
    crashing = _llm("a", RuntimeError("first"), RuntimeError("second"))
    b = _llm("b", "b1", "b2")
    loop = LoopAgent(name="loop", max_iterations=2, sub_agents=[crashing, b], on_failure="continue")
    runner = TestRunner(loop)
    events = await runner.run("go")
    assert simplify_events(events) == [("b", "b1"), ("b", "b2")]
    assert (await runner.state())["outcome:a"]["reason"] == "second"
    assert _outcomes(events)["loop"] == "failure"


async def test_an_escalation_is_not_a_failure_for_a_stop_policy():
    critic = _llm("critic", function_call("exit_loop"), tools=[exit_loop])
    loop = LoopAgent(name="loop", max_iterations=3, sub_agents=[critic], on_failure="stop")
    tail = _llm("tail", "tail ran")
    seq = SequentialAgent(name="seq", sub_agents=[loop, tail], on_failure="stop")
    runner = TestRunner(seq)
    events = await runner.run("go")
    assert simplify_events(events)[-1] == ("tail", "tail ran")
    state = await runner.state()
    assert state["outcome:critic"] == {"status": "escalated"}
    assert "outcome:loop" not in state and "outcome:seq" not in state  # both succeeded
