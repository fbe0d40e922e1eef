"""Fan-out, joins, branches and concurrency of graph nodes."""

from __future__ import annotations

import asyncio
from typing import Any

from wf_support import outputs

from pyadk.testing import TestRunner
from pyadk.workflow import START, Context, JoinNode, Workflow, WorkflowConfigurationError


def split(node_input: Any) -> str:
    return "job"


async def test_fan_out_runs_targets_concurrently_and_join_collects_their_outputs():
    started: list[str] = []
    both_started = asyncio.Event()

    async def left(node_input: str) -> str:
        started.append("left")
        if len(started) == 2:
            both_started.set()
        await asyncio.wait_for(both_started.wait(), 2)  # only returns if right runs meanwhile
        return f"left({node_input})"

    async def right(node_input: str) -> str:
        started.append("right")
        if len(started) == 2:
            both_started.set()
        await asyncio.wait_for(both_started.wait(), 2)
        return f"right({node_input})"

    def merge(node_input: dict[str, str]) -> str:
        return " + ".join(f"{k}={v}" for k, v in sorted(node_input.items()))

    join = JoinNode(name="join")
    wf = Workflow(name="wf", edges=[(START, split, (left, right), join, merge)])
    runner = TestRunner(wf)
    events = await runner.run("go")
    found = dict(outputs(events))
    assert found["join"] == {"left": "left(job)", "right": "right(job)"}
    assert found["merge"] == "left=left(job) + right=right(job)"
    branches = {e.custom_metadata["node_info"]["path"]: e.branch for e in events}  # type: ignore[index]
    assert branches["wf@1/left@1"] == "wf.left"
    assert branches["wf@1/right@1"] == "wf.right"
    assert branches["wf@1/join@1"] is None  # the branches met again
    assert branches["wf@1/merge@1"] is None


async def test_state_written_in_parallel_branches_is_all_saved():
    def one(ctx: Context) -> str:
        ctx.state["one"] = 1
        return "1"

    def two(ctx: Context) -> str:
        ctx.state["two"] = 2
        return "2"

    def total(node_input: dict[str, str], one: int, two: int) -> int:
        return one + two

    join = JoinNode(name="join")
    wf = Workflow(name="wf", edges=[(START, (one, two), join, total)])
    runner = TestRunner(wf)
    events = await runner.run("go")
    assert dict(outputs(events))["total"] == 3
    state = await runner.state()
    assert (state["one"], state["two"]) == (1, 2)


async def test_two_terminal_outputs_without_a_join_fail_the_run():
    def a() -> str:
        return "a"

    def b() -> str:
        return "b"

    runner = TestRunner(Workflow(name="wf", edges=[(START, (a, b))]))
    try:
        await runner.run("go")
    except WorkflowConfigurationError as error:
        assert "2 terminal nodes (['a', 'b']) produced an output" in str(error)
    else:  # pragma: no cover
        raise AssertionError("expected WorkflowConfigurationError")
    state = await runner.state()
    assert state["outcome:wf"]["status"] == "failure"


async def test_parallel_branches_ending_without_output_are_fine():
    seen: list[str] = []

    def a() -> None:
        seen.append("a")

    def b() -> None:
        seen.append("b")

    await TestRunner(Workflow(name="wf", edges=[(START, (a, b))])).run("go")
    assert sorted(seen) == ["a", "b"]


async def test_max_concurrency_limits_nodes_running_at_once():
    running = 0
    peak = 0

    async def work(node_input: Any) -> None:
        nonlocal running, peak
        running += 1
        peak = max(peak, running)
        await asyncio.sleep(0.01)
        running -= 1

    nodes = []
    for index in range(4):

        async def step(node_input: Any, _index: int = index) -> None:
            await work(node_input)

        step.__name__ = f"step{index}"
        nodes.append(step)
    wf = Workflow(name="wf", edges=[(START, tuple(nodes))], max_concurrency=2)
    await TestRunner(wf).run("go")
    assert peak == 2


async def test_join_in_a_loop_waits_for_each_rounds_predecessors():
    def split_round(ctx: Context, rounds: int = 0) -> int:
        ctx.state["rounds"] = rounds + 1
        return rounds + 1

    def a(node_input: int) -> str:
        return f"a{node_input}"

    def b(node_input: int) -> str:
        return f"b{node_input}"

    def check(node_input: dict[str, str], ctx: Context, rounds: int) -> dict[str, str]:
        ctx.route = "again" if rounds < 2 else "done"
        return node_input

    def done(node_input: dict[str, str]) -> str:
        return node_input["a"] + node_input["b"]

    join = JoinNode(name="join")
    wf = Workflow(
        name="wf",
        edges=[(START, split_round, (a, b), join, check, {"again": split_round, "done": done})],
    )
    events = await TestRunner(wf).run("go")
    joins = [output for name, output in outputs(events) if name == "join"]
    assert joins == [{"a": "a1", "b": "b1"}, {"a": "a2", "b": "b2"}]
    assert outputs(events)[-1] == ("done", "a2b2")


async def test_a_join_right_after_start_gets_the_input_under_start():
    def side(node_input: str) -> str:
        return f"side({node_input})"

    join = JoinNode(name="join")
    wf = Workflow(name="wf", edges=[(START, (side, join)), (side, join)])
    events = await TestRunner(wf).run("go")
    joined = dict(outputs(events))["join"]
    assert joined["side"] == "side(go)"
    assert joined["__START__"].parts[0].text == "go"  # the user's message
