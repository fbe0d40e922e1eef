"""parallel_worker: one run of a node per item of its list input."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator
from typing import Any

import pytest
from wf_support import outputs, paths

from pyadk.agents import LlmAgent
from pyadk.testing import ScriptedModel, TestRunner
from pyadk.workflow import START, Context, Node, ParallelWorker, RetryConfig, Workflow, node


def make_list() -> list[int]:
    return [1, 2, 3]


async def test_a_worker_node_runs_per_item_and_outputs_the_list_in_order():
    running = 0
    peak = 0

    @node(parallel_worker=True, max_parallel_workers=2)
    async def square(node_input: int, ctx: Context) -> int:
        nonlocal running, peak
        running += 1
        peak = max(peak, running)
        await asyncio.sleep(0.01 * (4 - node_input))  # later items finish first
        running -= 1
        ctx.state[f"square_{node_input}"] = node_input**2
        return node_input**2

    def total(node_input: list[int]) -> int:
        return sum(node_input)

    assert isinstance(square, ParallelWorker)
    runner = TestRunner(Workflow(name="wf", edges=[(START, make_list, square, total)]))
    events = await runner.run("go")
    assert peak == 2
    found = outputs(events)
    assert found[-2:] == [("square", [1, 4, 9]), ("total", 14)]
    assert sorted(p for p in paths(events) if p.count("/") == 2) == [
        "wf@1/square@1/square@1",
        "wf@1/square@1/square@2",
        "wf@1/square@1/square@3",
    ]
    branches = {e.branch for e in events if (paths([e]) or [""])[0].count("/") == 2}
    assert branches == {"wf.square@1", "wf.square@2", "wf.square@3"}
    state = await runner.state()
    assert [state[f"square_{n}"] for n in (1, 2, 3)] == [1, 4, 9]


class Shout(Node):
    suffix: str = "!"

    async def run_node_impl(self, *, ctx: Context, node_input: Any) -> AsyncGenerator[Any, None]:
        yield f"{node_input}{self.suffix}".upper()


async def test_a_node_subclass_as_parallel_worker_and_a_message_list_input():
    shout = Shout(name="shout", parallel_worker=True)
    events = await TestRunner(Workflow(name="wf", edges=[(START, shout)])).run('["a", "b"]')
    assert outputs(events)[-1] == ("shout", ["A!", "B!"])
    single = await TestRunner(Workflow(name="wf", edges=[(START, shout)])).run("plain")
    assert outputs(single)[-1] == ("shout", ["PLAIN!"])


async def test_llm_workers_each_get_their_item():
    model = ScriptedModel(["one", "two"])
    summarize = node(LlmAgent(name="summarize", model=model), parallel_worker=True)

    def docs() -> list[str]:
        return ["doc A", "doc B"]

    events = await TestRunner(Workflow(name="wf", edges=[(START, docs, summarize)])).run("go")
    seen = sorted(r.contents[-1].parts[0].text for r in model.requests)
    assert seen == ["doc A", "doc B"]
    assert sorted(outputs(events)[-1][1]) == ["one", "two"]


async def test_a_failing_item_is_retried_by_the_inner_nodes_retry_config_else_fails():
    attempts: dict[int, int] = {}

    @node(
        parallel_worker=True,
        retry_config=RetryConfig(max_attempts=2, initial_delay=0.001, jitter=0),
    )
    def fragile(node_input: int) -> int:
        attempts[node_input] = attempts.get(node_input, 0) + 1
        if node_input == 2 and attempts[node_input] == 1:
            raise ConnectionError("flaky")
        if node_input == 3:
            raise ValueError("item 3 is bad")
        return node_input

    runner = TestRunner(Workflow(name="wf", edges=[(START, make_list, fragile)]))
    with pytest.raises(ValueError, match="item 3 is bad"):
        await runner.run("go")
    assert attempts[2] == 2 and attempts[3] == 2
    assert (await runner.state())["outcome:wf"]["status"] == "failure"


async def test_an_empty_list_gives_an_empty_output():
    @node(parallel_worker=True)
    def never(node_input: Any) -> None:
        raise AssertionError("no items")

    def empty() -> list[Any]:
        return []

    events = await TestRunner(Workflow(name="wf", edges=[(START, empty, never)])).run("go")
    assert outputs(events) == [("empty", []), ("never", [])]
