"""Spans across async generators: cancellation, a caller that stops reading, the caller's
context, and the synchronous Runner.run."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from contextlib import aclosing

import pytest
from opentelemetry import trace

from pyadk import types
from pyadk.agents import BaseAgent, LlmAgent, ParallelAgent
from pyadk.runners import InMemoryRunner
from pyadk.testing import ScriptedModel, function_call


def _blocking_tool() -> tuple[Callable[[], Awaitable[str]], asyncio.Event]:
    """A tool that blocks until cancelled, and the event it sets when it starts."""
    started = asyncio.Event()

    async def wait_forever() -> str:
        """Blocks until cancelled."""
        started.set()
        await asyncio.Event().wait()
        return "never"

    return wait_forever, started


def _message(text: str) -> types.Content:
    return types.Content(role="user", parts=[types.Part(text=text)])


async def _runner(agent: BaseAgent) -> InMemoryRunner:
    runner = InMemoryRunner(agent, app_name="app")
    await runner.session_service.create_session(app_name="app", user_id="u", session_id="s")
    return runner


async def test_cancelling_a_turn_ends_every_open_span(tracing):
    wait_forever, started = _blocking_tool()
    agent = LlmAgent(
        name="waiter", model=ScriptedModel([function_call("wait_forever")]), tools=[wait_forever]
    )
    runner = await _runner(agent)

    async def consume() -> None:
        async for _ in runner.run_async(user_id="u", session_id="s", new_message=_message("go")):
            pass

    task = asyncio.create_task(consume())
    await started.wait()
    assert sorted(tracing.open_spans.open.values()) == [
        "call_llm",  # ended when the flow resumes it, at the time the model answered
        "execute_tool wait_forever",
        "invocation",
        "invoke_agent waiter",
    ]
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task

    assert tracing.open_spans.open == {}
    call = tracing.one("call_llm")  # the model call had finished: not interrupted
    assert call.attributes is not None and "pyadk.interrupted" not in call.attributes
    tool_start = tracing.one("execute_tool wait_forever").start_time
    assert call.end_time is not None and tool_start is not None and call.end_time <= tool_start
    for name in ("execute_tool wait_forever", "invoke_agent waiter", "invocation"):
        span = tracing.one(name)
        assert span.attributes is not None
        assert span.attributes["pyadk.interrupted"] == "cancelled", name
    agent_span = tracing.one("invoke_agent waiter")
    assert agent_span.attributes is not None
    assert agent_span.attributes["pyadk.agent.outcome"] == "cancelled"


async def test_a_caller_that_stops_reading_closes_the_turns_spans(tracing):
    model = ScriptedModel([function_call("add", {"a": 1, "b": 2}), "3"])
    runner = await _runner(LlmAgent(name="calc", model=model, tools=[add]))

    events = runner.run_async(user_id="u", session_id="s", new_message=_message("1+2?"))
    async with aclosing(events) as stream:
        async for event in stream:
            assert event.get_function_calls()  # the first event: the model's call
            break

    assert tracing.open_spans.open == {}
    assert sorted(tracing.names()) == ["call_llm", "invocation", "invoke_agent calc"]
    for name in ("invoke_agent calc", "invocation"):
        span = tracing.one(name)
        assert span.attributes is not None
        assert span.attributes["pyadk.interrupted"] == "closed", name


def add(a: int, b: int) -> int:
    """Adds two numbers."""
    return a + b


async def test_the_callers_span_is_the_parent_and_stays_current_between_events(tracing):
    model = ScriptedModel([function_call("add", {"a": 1, "b": 2}), "3"])
    runner = await _runner(LlmAgent(name="calc", model=model, tools=[add]))
    app_tracer = tracing.provider.get_tracer("the-app")

    seen = 0
    with app_tracer.start_as_current_span("handle request") as request_span:
        async for _ in runner.run_async(user_id="u", session_id="s", new_message=_message("hi")):
            assert trace.get_current_span() is request_span  # pyadk's spans never leak out
            seen += 1

    assert seen == 3
    request = tracing.one("handle request")
    invocation = tracing.one("invocation")
    assert tracing.parent_of(invocation) is request
    assert invocation.context.trace_id == request.context.trace_id


async def test_tools_see_their_span_as_the_current_span(tracing):
    seen: list[str] = []

    def where_am_i() -> str:
        """Reports the current span."""
        span = trace.get_current_span()
        seen.append(getattr(span, "name", ""))
        return "ok"

    model = ScriptedModel([function_call("where_am_i"), "done"])
    runner = await _runner(LlmAgent(name="probe", model=model, tools=[where_am_i]))
    async for _ in runner.run_async(user_id="u", session_id="s", new_message=_message("hi")):
        pass

    assert seen == ["execute_tool where_am_i"]


def test_the_synchronous_runner_records_the_same_spans(tracing):
    model = ScriptedModel([function_call("add", {"a": 1, "b": 2}), "3"])
    runner = InMemoryRunner(LlmAgent(name="calc", model=model, tools=[add]), app_name="app")
    asyncio.run(runner.session_service.create_session(app_name="app", user_id="u", session_id="s"))

    events = list(runner.run(user_id="u", session_id="s", new_message=_message("1+2?")))

    assert len(events) == 3
    assert sorted(tracing.names()) == sorted(
        ["invocation", "invoke_agent calc", "call_llm", "execute_tool add", "call_llm"]
    )
    assert tracing.one("invocation").parent is None
    assert tracing.open_spans.open == {}


async def test_cancelling_parallel_branches_ends_every_branch_span(tracing):
    wait_forever, started = _blocking_tool()
    branches = [
        LlmAgent(
            name=f"branch{i}",
            model=ScriptedModel([function_call("wait_forever")]),
            tools=[wait_forever],
        )
        for i in range(2)
    ]
    runner = await _runner(ParallelAgent(name="fan", sub_agents=branches))

    async def consume() -> None:
        async for _ in runner.run_async(user_id="u", session_id="s", new_message=_message("go")):
            pass

    task = asyncio.create_task(consume())
    await started.wait()
    while sorted(tracing.open_spans.open.values()).count("execute_tool wait_forever") < 2:
        await asyncio.sleep(0)  # both branches are in their tool
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task

    assert tracing.open_spans.open == {}
    fan = tracing.one("invoke_agent fan")
    assert sorted(tracing.children(fan)) == ["invoke_agent branch0", "invoke_agent branch1"]
    for i in range(2):
        branch = tracing.one(f"invoke_agent branch{i}")
        assert branch.attributes is not None
        assert branch.attributes["pyadk.agent.outcome"] == "cancelled"
