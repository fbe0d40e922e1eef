"""Node failures, retries and timeouts."""

from __future__ import annotations

import asyncio
from contextlib import aclosing
from typing import Any

import pytest
from wf_support import outputs

from pyadk import types
from pyadk.agents import LlmAgent, LlmCallsLimitExceededError, RunConfig, SequentialAgent
from pyadk.errors import AgentTimeoutError
from pyadk.events import Event
from pyadk.testing import ScriptedModel, TestRunner
from pyadk.workflow import (
    START,
    Context,
    NodeTimeoutError,
    RetryConfig,
    Workflow,
    WorkflowDataError,
    node,
)

FAST = {"initial_delay": 0.001, "jitter": 0.0}


def first() -> str:
    return "first"


async def test_a_failing_node_records_an_error_event_and_fails_the_run():
    def bad(node_input: str) -> str:
        raise RuntimeError("bad input")

    def never(node_input: Any) -> str:
        raise AssertionError("not reached")

    runner = TestRunner(Workflow(name="wf", edges=[(START, first, bad, never)]))
    with pytest.raises(RuntimeError, match="bad input"):
        await runner.run("go")
    stored = (await runner.session()).events
    errors = [e for e in stored if e.error_code]
    assert [(e.author, e.error_code, e.error_message) for e in errors] == [
        ("wf", "RuntimeError", "bad input")
    ]
    assert errors[0].custom_metadata["node_info"]["path"] == "wf@1/bad@1"  # type: ignore[index]
    assert outputs(stored) == [("first", "first")]  # what ran before is kept
    outcome = (await runner.state())["outcome:wf"]
    assert outcome["status"] == "failure" and outcome["error_type"] == "RuntimeError"


async def test_retry_config_reruns_a_failing_node_until_it_succeeds():
    attempts: list[int] = []

    @node(retry_config=RetryConfig(max_attempts=3, **FAST))
    def flaky(ctx: Context) -> str:
        attempts.append(len(attempts) + 1)
        ctx.state["attempts"] = len(attempts)
        if len(attempts) < 3:
            raise ConnectionError(f"try {len(attempts)}")
        return "ok"

    runner = TestRunner(Workflow(name="wf", edges=[(START, flaky)]))
    events = await runner.run("go")
    assert attempts == [1, 2, 3]
    retried = [e.custom_metadata["error"] for e in events if "error" in (e.custom_metadata or {})]
    assert retried == [
        {"type": "ConnectionError", "message": "try 1", "attempt": 1, "retrying": True},
        {"type": "ConnectionError", "message": "try 2", "attempt": 2, "retrying": True},
    ]
    assert not any(e.error_code for e in events)
    assert outputs(events) == [("flaky", "ok")]
    state = await runner.state()
    assert state["attempts"] == 3  # saved with the successful attempt's output
    assert "outcome:wf" not in state  # a recovered run is a success


async def test_retries_give_up_after_max_attempts_or_on_other_exceptions():
    calls = 0

    @node(retry_config=RetryConfig(max_attempts=2, **FAST))
    def always_fails() -> None:
        nonlocal calls
        calls += 1
        raise ValueError(f"fail {calls}")

    runner = TestRunner(Workflow(name="wf", edges=[(START, always_fails)]))
    with pytest.raises(ValueError, match="fail 2"):
        await runner.run("go")
    assert calls == 2
    final = [e for e in (await runner.session()).events if e.error_code]
    assert [e.error_message for e in final] == ["fail 2"]

    other = 0

    @node(retry_config=RetryConfig(max_attempts=5, exceptions=[ConnectionError], **FAST))
    def wrong_kind() -> None:
        nonlocal other
        other += 1
        raise KeyError("no")

    with pytest.raises(KeyError):
        await TestRunner(Workflow(name="wf", edges=[(START, wrong_kind)])).run("go")
    assert other == 1


async def test_a_node_past_its_timeout_fails_with_node_timeout_error():
    @node(timeout=0.05)
    async def slow() -> str:
        await asyncio.sleep(5)
        return "late"

    runner = TestRunner(Workflow(name="wf", edges=[(START, first, slow)]))
    with pytest.raises(NodeTimeoutError, match=r"Node 'slow' timed out after 0\.05 seconds"):
        await runner.run("go")
    errors = [e for e in (await runner.session()).events if e.error_code]
    assert [e.error_code for e in errors] == ["NodeTimeoutError"]


async def test_a_timed_out_node_is_retried():
    calls = 0

    @node(timeout=0.05, retry_config=RetryConfig(max_attempts=2, **FAST))
    async def sometimes_slow() -> str:
        nonlocal calls
        calls += 1
        if calls == 1:
            await asyncio.sleep(5)
        return "fast enough"

    events = await TestRunner(Workflow(name="wf", edges=[(START, sometimes_slow)])).run("go")
    assert calls == 2
    assert outputs(events) == [("sometimes_slow", "fast enough")]


async def test_a_failure_in_one_branch_cancels_the_other():
    cancelled = asyncio.Event()

    async def boom(node_input: Any) -> None:
        await asyncio.sleep(0.01)
        raise RuntimeError("boom")

    async def long_running(node_input: Any) -> None:
        try:
            await asyncio.sleep(5)
        except asyncio.CancelledError:
            cancelled.set()
            raise

    with pytest.raises(RuntimeError, match="boom"):
        await TestRunner(Workflow(name="wf", edges=[(START, (boom, long_running))])).run("go")
    assert cancelled.is_set()


async def test_a_missing_state_value_for_a_parameter_fails_the_node():
    def needs(customer_id: str) -> str:
        return customer_id

    with pytest.raises(WorkflowDataError, match="'customer_id' of node 'needs'"):
        await TestRunner(Workflow(name="wf", edges=[(START, needs)])).run("go")


async def test_an_llm_node_error_is_retried_like_any_other():
    model = ScriptedModel([ConnectionError("model down"), "recovered"])
    writer = node(
        LlmAgent(name="writer", model=model), retry_config=RetryConfig(max_attempts=2, **FAST)
    )
    events = await TestRunner(Workflow(name="wf", edges=[(START, writer)])).run("go")
    assert [e.text for e in events if e.author == "writer" and e.content] == ["recovered"]


async def test_sequential_on_failure_policy_sees_a_failed_workflow():
    def bad() -> None:
        raise RuntimeError("nope")

    wf = Workflow(name="wf", edges=[(START, bad)])
    after = LlmAgent(name="after", model=ScriptedModel(["still here"]))
    seq = SequentialAgent(name="seq", sub_agents=[wf, after], on_failure="continue")
    runner = TestRunner(seq)
    events = await runner.run("go")
    assert [e.text for e in events if e.author == "after" and e.content] == ["still here"]
    assert (await runner.state())["outcome:wf"]["status"] == "failure"


async def test_the_workflow_agent_timeout_cancels_running_nodes():
    cancelled = asyncio.Event()

    async def slow(node_input: Any) -> None:
        try:
            await asyncio.sleep(5)
        except asyncio.CancelledError:
            cancelled.set()
            raise

    runner = TestRunner(Workflow(name="wf", edges=[(START, slow)], timeout=0.05))
    with pytest.raises(AgentTimeoutError):
        await runner.run("go")
    assert cancelled.is_set()
    assert (await runner.state())["outcome:wf"]["status"] == "timed_out"


async def test_closing_the_event_stream_early_cancels_running_nodes():
    cancelled = asyncio.Event()

    def first_node() -> str:
        return "first"

    async def never_ends(node_input: Any) -> None:
        try:
            await asyncio.sleep(5)
        except asyncio.CancelledError:
            cancelled.set()
            raise

    runner = TestRunner(Workflow(name="wf", edges=[(START, (first_node, never_ends))]))
    await runner._ensure_session()
    stream = runner.run_async(
        user_id=runner.user_id,
        session_id=runner.session_id,
        new_message=types.UserContent("go"),
    )
    async with aclosing(stream) as events:
        async for event in events:
            assert outputs([event]) == [("first_node", "first")]
            break
    assert cancelled.is_set()


async def test_resuming_a_crashed_workflow_invocation_goes_on_after_the_stored_output():
    ran: list[str] = []

    def first_step() -> str:
        ran.append("first_step")
        return "first"

    helper = LlmAgent(name="helper", model=ScriptedModel(["helped"]))
    runner = TestRunner(Workflow(name="wf", edges=[(START, first_step, helper)]))
    session = await runner.session()
    user = Event(invocation_id="e-1", author="user", content=types.UserContent("go"))
    node_done = Event(
        invocation_id="e-1",
        author="wf",
        custom_metadata={"node_info": {"path": "wf@1/first_step@1"}, "output": "first"},
    )
    for event in (user, node_done):
        await runner.session_service.append_event(session, event)
    # Stored events ending on a node's output: that node is not run again, the
    # workflow goes on with its output (see test_workflow_recovery.py).
    resumed = await runner.resume("e-1")
    assert ran == []
    assert [e.content.parts[0].text for e in resumed if e.author == "helper" and e.content] == [
        "helped"
    ]


async def test_a_node_that_gets_cancelled_on_its_own_ends_the_run_as_cancelled():
    async def cancels_itself(node_input: Any) -> None:
        raise asyncio.CancelledError

    runner = TestRunner(Workflow(name="wf", edges=[(START, cancels_itself)]))
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(runner.run("go"), 5)  # ends instead of hanging
    assert (await runner.state())["outcome:wf"]["status"] == "cancelled"


async def test_the_turns_llm_call_limit_is_not_retried():
    model = ScriptedModel(["one", "two", "three"])
    talker = node(
        LlmAgent(name="talker", model=model),
        retry_config=RetryConfig(max_attempts=5, **FAST),
    )

    def again(node_input: str, ctx: Context) -> str:
        ctx.route = "more"
        return node_input

    wf = Workflow(name="wf", edges=[(START, talker, again, {"more": talker})])
    with pytest.raises(LlmCallsLimitExceededError):
        await TestRunner(wf).run("go", run_config=RunConfig(max_llm_calls=2))
    assert len(model.requests) == 2
