"""``ctx.run_node`` started in a task the node never awaits: the node waits for it when
its body ends, and its failure fails the node (it is not lost)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from wf_support import outputs

from pyadk.testing import TestRunner
from pyadk.workflow import START, Context, FunctionNode, RetryConfig, Workflow, node_path


def broken(node_input: Any) -> None:
    raise RuntimeError("child broke")


async def slow_broken(node_input: Any) -> None:
    await asyncio.sleep(0.01)
    raise RuntimeError("slow child broke")


def after(node_input: Any) -> str:
    return "after ran"


async def test_a_detached_child_failing_after_the_body_fails_the_node():
    async def parent(ctx: Context) -> str:
        asyncio.create_task(ctx.run_node(slow_broken))  # noqa: RUF006 - never awaited
        return "parent done"

    wf = Workflow(name="wf", edges=[(START, parent, after)])
    with pytest.raises(RuntimeError, match="slow child broke"):
        await TestRunner(wf).run("go")


async def test_a_detached_child_that_failed_before_the_body_ended_fails_the_node():
    async def parent(ctx: Context) -> str:
        asyncio.create_task(ctx.run_node(broken))  # noqa: RUF006
        await asyncio.sleep(0.02)  # the child fails meanwhile; no one reads it
        return "parent done"

    wf = Workflow(name="wf", edges=[(START, parent, after)])
    runner = TestRunner(wf)
    with pytest.raises(RuntimeError, match="child broke"):
        await runner.run("go")
    stored = (await runner.session()).events
    assert not any(node_path(e) == "wf@1/after@1" for e in stored)  # nothing ran after


async def test_a_detached_child_that_succeeds_is_waited_for():
    done: list[str] = []

    async def slow(node_input: Any) -> str:
        await asyncio.sleep(0.01)
        done.append("child")
        return "child output"

    async def parent(ctx: Context) -> str:
        asyncio.create_task(ctx.run_node(slow))  # noqa: RUF006
        return "parent done"

    events = await TestRunner(Workflow(name="wf", edges=[(START, parent, after)])).run("go")
    assert done == ["child"]
    assert sorted(outputs(events)) == [
        ("after", "after ran"),
        ("parent", "parent done"),
        ("slow", "child output"),
    ]


async def test_a_failure_the_node_read_is_not_raised_again():
    async def parent(ctx: Context) -> str:
        results = await asyncio.gather(ctx.run_node(broken), return_exceptions=True)
        task = asyncio.create_task(ctx.run_node(broken))
        try:
            await task
        except Exception:
            pass
        return f"handled {type(results[0]).__name__}"

    events = await TestRunner(Workflow(name="wf", edges=[(START, parent)])).run("go")
    assert outputs(events)[-1] == ("parent", "handled DynamicNodeFailError")


async def test_a_detached_failure_is_retried_like_the_nodes_own():
    attempts: list[int] = []

    async def parent(ctx: Context) -> str:
        attempts.append(1)
        if len(attempts) == 1:
            asyncio.create_task(ctx.run_node(broken))  # noqa: RUF006
        return "ok"

    retried = FunctionNode(parent, retry_config=RetryConfig(max_attempts=2, initial_delay=0))
    wf = Workflow(name="wf", edges=[(START, retried)])
    events = await TestRunner(wf).run("go")
    assert len(attempts) == 2
    assert outputs(events)[-1] == ("parent", "ok")
