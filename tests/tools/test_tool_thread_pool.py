"""RunConfig.tool_thread_pool_config: synchronous tool functions (and synchronous
function nodes of graph workflows) run on a thread pool, so that a blocking call never
holds up the event loop; without it a single sync call runs on the loop."""

from __future__ import annotations

import asyncio
import contextvars
import threading
import time

import pytest
from pydantic import ValidationError

from pyadk.agents import LlmAgent, RunConfig, ToolThreadPoolConfig
from pyadk.testing import ScriptedModel, TestRunner, function_call
from pyadk.workflow import START, Workflow

REQUEST = contextvars.ContextVar("REQUEST", default="none")


def agent(*calls, tools) -> LlmAgent:
    model = ScriptedModel([list(calls) if len(calls) > 1 else calls[0], "done"])
    return LlmAgent(name="worker", model=model, tools=tools)


def results(events) -> list:
    return [r.response for e in events for r in e.get_function_responses()]


async def test_a_blocking_tool_leaves_the_event_loop_free():
    started, released = threading.Event(), threading.Event()

    def wait_for_release() -> dict:
        """Blocks its thread until released."""
        started.set()
        return {"released": released.wait(timeout=5), "thread": threading.current_thread().name}

    async def release_once_started() -> None:
        while not started.is_set():
            await asyncio.sleep(0.005)  # runs only if the loop is not blocked
        released.set()

    runner = TestRunner(agent(function_call("wait_for_release"), tools=[wait_for_release]))
    config = RunConfig(tool_thread_pool_config=ToolThreadPoolConfig(max_workers=2))
    releaser = asyncio.create_task(release_once_started())
    events = await runner.run("go", run_config=config)
    await releaser
    [result] = results(events)
    assert result["released"] is True
    assert result["thread"].startswith("pyadk-tool")


async def test_without_the_config_a_single_sync_call_runs_on_the_loop():
    def where() -> str:
        """Names the thread it runs on."""
        return threading.current_thread().name

    events = await TestRunner(agent(function_call("where"), tools=[where])).run("go")
    assert results(events) == [{"result": threading.current_thread().name}]


async def test_max_workers_bounds_the_calls_running_at_once():
    running, most = 0, 0
    lock = threading.Lock()

    def busy(n: int) -> int:
        """Works a moment."""
        nonlocal running, most
        with lock:
            running += 1
            most = max(most, running)
        time.sleep(0.05)
        with lock:
            running -= 1
        return n

    calls = [function_call("busy", {"n": n}) for n in range(4)]
    runner = TestRunner(agent(*calls, tools=[busy]))
    config = RunConfig(tool_thread_pool_config=ToolThreadPoolConfig(max_workers=1))
    events = await runner.run("go", run_config=config)
    assert sorted(r["result"] for r in results(events)) == [0, 1, 2, 3]
    assert most == 1


async def test_the_tool_sees_the_callers_context_variables():
    def request_id() -> str:
        """The request being served."""
        return REQUEST.get()

    REQUEST.set("req-7")
    runner = TestRunner(agent(function_call("request_id"), tools=[request_id]))
    config = RunConfig(tool_thread_pool_config=ToolThreadPoolConfig())
    events = await runner.run("go", run_config=config)
    assert results(events) == [{"result": "req-7"}]


async def test_sync_function_nodes_of_a_workflow_run_on_the_pool_too():
    seen: list[str] = []

    def step(node_input) -> str:
        seen.append(threading.current_thread().name)
        return "ok"

    runner = TestRunner(Workflow(name="flow", edges=[(START, step)]))
    await runner.run("go", run_config=RunConfig(tool_thread_pool_config=ToolThreadPoolConfig()))
    await runner.run("again")
    assert seen[0].startswith("pyadk-tool") and seen[1] == threading.current_thread().name


def test_a_pool_needs_at_least_one_worker():
    with pytest.raises(ValidationError, match="greater than or equal to 1"):
        ToolThreadPoolConfig(max_workers=0)
    with pytest.raises(ValidationError, match="Extra inputs"):
        ToolThreadPoolConfig(workers=2)
