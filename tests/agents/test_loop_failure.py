"""LoopAgent: escalation ends only the nearest loop; on_failure policies; max_iterations."""

from __future__ import annotations

import pytest
from agent_support import A_REASON, calls, failing, failing_tool, llm, outcome_statuses, raising

from pyadk.agents import LoopAgent, SequentialAgent
from pyadk.testing import TestRunner, function_call, simplify_events
from pyadk.tools import exit_loop


async def test_escalation_ends_only_the_nearest_loop():
    worker = llm("worker", "w1", "w2")
    critic = llm(
        "critic", function_call("exit_loop"), function_call("exit_loop"), tools=[exit_loop]
    )
    inner = LoopAgent(name="inner", max_iterations=5, sub_agents=[worker, critic])
    after = llm("after", "after 1", "after 2")
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
    critic = llm("critic", function_call("exit_loop"), tools=[exit_loop])
    step = SequentialAgent(name="step", sub_agents=[critic, llm("never", "no")])
    loop = LoopAgent(name="loop", max_iterations=3, sub_agents=[step])
    tail = llm("tail", "tail ran")
    events = await TestRunner(SequentialAgent(name="root", sub_agents=[loop, tail])).run("go")
    assert simplify_events(events)[-1] == ("tail", "tail ran")
    assert tail.model.call_count == 1 and critic.model.call_count == 1


async def test_loop_stops_after_max_iterations():
    loop = LoopAgent(name="loop", max_iterations=2, sub_agents=[llm("a", "1", "2", "3")])
    events = await TestRunner(loop).run("go")
    assert simplify_events(events) == [("a", "1"), ("a", "2")]


async def test_loop_default_policy_keeps_looping_after_failures():
    flaky = llm("a", function_call("failing_tool"), "x", "fine", tools=[failing_tool])
    loop = LoopAgent(name="loop", max_iterations=2, sub_agents=[flaky, llm("b", "b1", "b2")])
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
    b = llm("b", "B")
    loop = LoopAgent(name="loop", max_iterations=3, sub_agents=[failing(), b], on_failure="stop")
    runner = TestRunner(loop)
    events = await runner.run("go")
    assert calls(b) == 0
    assert outcome_statuses(events) == {"a": "failure", "loop": "failure"}
    assert (await runner.state())["outcome:loop"]["reason"] == f"a failure: {A_REASON}"


async def test_loop_stop_policy_reraises_exceptions():
    loop = LoopAgent(name="loop", max_iterations=3, sub_agents=[raising()], on_failure="stop")
    with pytest.raises(RuntimeError, match="a crashed"):
        await TestRunner(loop).run("go")


async def test_loop_skip_rest_skips_the_rest_of_the_iteration_and_ends():
    b, c = llm("b", "B"), llm("c", "C")
    loop = LoopAgent(
        name="loop", max_iterations=3, sub_agents=[raising(), b, c], on_failure="skip_rest"
    )
    runner = TestRunner(loop)
    events = await runner.run("go")  # absorbed
    assert calls(b) == calls(c) == 0
    assert outcome_statuses(events) == {
        "a": "failure",
        "b": "skipped",
        "c": "skipped",
        "loop": "failure",
    }
    assert (await runner.state())["outcome:c"]["reason"] == "skipped because a failure: a crashed"


async def test_loop_continue_policy_goes_on_through_every_iteration():
    crashing = llm("a", RuntimeError("first"), RuntimeError("second"))
    b = llm("b", "b1", "b2")
    loop = LoopAgent(name="loop", max_iterations=2, sub_agents=[crashing, b], on_failure="continue")
    runner = TestRunner(loop)
    events = await runner.run("go")
    assert simplify_events(events) == [("b", "b1"), ("b", "b2")]
    assert (await runner.state())["outcome:a"]["reason"] == "second"
    assert outcome_statuses(events)["loop"] == "failure"


async def test_an_escalation_is_not_a_failure_for_a_stop_policy():
    critic = llm("critic", function_call("exit_loop"), tools=[exit_loop])
    loop = LoopAgent(name="loop", max_iterations=3, sub_agents=[critic], on_failure="stop")
    tail = llm("tail", "tail ran")
    seq = SequentialAgent(name="seq", sub_agents=[loop, tail], on_failure="stop")
    runner = TestRunner(seq)
    events = await runner.run("go")
    assert simplify_events(events)[-1] == ("tail", "tail ran")
    state = await runner.state()
    assert state["outcome:critic"] == {"status": "escalated"}
    assert "outcome:loop" not in state and "outcome:seq" not in state  # both succeeded
