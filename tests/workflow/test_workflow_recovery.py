"""Resuming a graph Workflow's interrupted invocation: ``run_async(invocation_id=...)``."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from wf_support import outputs, paths

from pyadk import types
from pyadk.agents import LlmAgent
from pyadk.agents.interrupted import InvocationNotFoundError
from pyadk.events import Event
from pyadk.models import LlmRequest
from pyadk.testing import FunctionModel, TestRunner
from pyadk.workflow import (
    START,
    JoinNode,
    RequestInput,
    Workflow,
    WorkflowConfigurationError,
    node,
)


class Calls:
    """Counts the runs of each node; ``hang`` makes one node block until cancelled."""

    def __init__(self, hang: str | None = None) -> None:
        self.ran: list[str] = []
        self.hang = hang
        self.hanging = asyncio.Event()

    def step(self, name: str, fn: Any = None) -> Any:
        async def run(node_input: Any) -> Any:
            self.ran.append(name)
            if name == self.hang:
                self.hang = None  # blocks once: the interrupted run
                self.hanging.set()
                await asyncio.Event().wait()
            return fn(node_input) if fn else f"{name}({node_input})"

        return node(run, name=name)


async def interrupt_when(runner: TestRunner, calls: Calls, message: str = "go") -> str:
    """Starts a turn, cancels its task while ``calls.hang`` runs (a cancelled turn, as a
    stopped server leaves it); returns the invocation's id."""
    await runner._ensure_session()
    seen: list[str] = []

    async def turn() -> None:
        stream = runner.run_async(
            user_id=runner.user_id,
            session_id=runner.session_id,
            new_message=types.UserContent(message),
        )
        async for event in stream:
            seen.append(event.invocation_id)

    task = asyncio.create_task(turn())
    await asyncio.wait_for(calls.hanging.wait(), 5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    return (await runner.session()).events[0].invocation_id


def input_requests(events: list[Event]) -> list[types.FunctionCall]:
    return [c for e in events for c in e.get_function_calls() if c.name == "adk_request_input"]


def answer_input(request: types.FunctionCall, value: Any) -> types.Content:
    response = types.FunctionResponse(id=request.id, name=request.name, response=value)
    return types.Content(role="user", parts=[types.Part(function_response=response)])


def text(value: Any) -> str:
    return value.parts[0].text if isinstance(value, types.Content) else str(value)


async def test_finished_nodes_are_not_run_again_and_the_run_ends_with_the_right_output():
    calls = Calls(hang="c")
    a = calls.step("a", lambda x: "A")
    b = calls.step("b", lambda x: x + "B")
    c = calls.step("c", lambda x: x + "C")
    d = calls.step("d", lambda x: x + "D")
    runner = TestRunner(Workflow(name="wf", edges=[(START, a, b, c, d)]))
    invocation = await interrupt_when(runner, calls)
    assert calls.ran == ["a", "b", "c"]

    resumed = await runner.resume(invocation)
    assert calls.ran == ["a", "b", "c", "c", "d"]  # a and b not run again; c again
    assert outputs(resumed) == [("c", "ABC"), ("d", "ABCD")]
    assert paths(resumed)[:2] == ["wf@1/c@1", "wf@1/d@1"]  # c keeps its run id
    assert all(e.invocation_id == invocation for e in resumed)
    state = await runner.state()
    assert state["outcome:wf"]["status"] == "success"
    # The session holds each finished node's output once.
    stored = outputs((await runner.session()).events)
    assert stored == [("a", "A"), ("b", "AB"), ("c", "ABC"), ("d", "ABCD")]
    # Resumed again once finished: nothing runs.
    assert await runner.resume(invocation) == []
    assert calls.ran == ["a", "b", "c", "c", "d"]


async def test_fan_out_join_and_routes_resume_with_finished_branches_kept():
    calls = Calls(hang="slow")

    def classify(node_input: Any) -> str:
        return "x"

    router = calls.step("router", classify)

    async def route(ctx: Any, node_input: Any) -> str:
        ctx.route = "fast"
        return "routed"

    routed = node(route, name="route")
    fast = calls.step("fast", lambda x: "F")
    slow = calls.step("slow", lambda x: "S")
    join = JoinNode(name="join")
    done = calls.step("done", lambda x: f"{x['fast']}+{x['slow']}")
    unused = calls.step("unused")
    runner = TestRunner(
        Workflow(
            name="wf",
            edges=[
                (START, router, routed, {"fast": (fast, slow), "other": unused}),
                ((fast, slow), join, done),
            ],
        )
    )
    invocation = await interrupt_when(runner, calls)
    await asyncio.sleep(0)
    resumed = await runner.resume(invocation)
    assert calls.ran.count("router") == 1 and calls.ran.count("fast") == 1
    assert calls.ran.count("slow") == 2 and "unused" not in calls.ran
    assert outputs(resumed)[-1] == ("done", "F+S")


async def test_an_agent_node_that_answered_is_not_asked_again():
    calls = Calls(hang="after")
    asked: list[str] = []

    def reply(request: LlmRequest) -> str:
        asked.append("writer")
        return "draft"

    writer = LlmAgent(name="writer", model=FunctionModel(reply))
    after = calls.step("after", lambda x: f"{x}!")
    runner = TestRunner(Workflow(name="wf", edges=[(START, writer, after)]))
    invocation = await interrupt_when(runner, calls)
    resumed = await runner.resume(invocation)
    assert asked == ["writer"]
    assert calls.ran == ["after", "after"]
    assert outputs(resumed) == [("after", "draft!")]


async def test_an_agent_node_cut_off_runs_again_from_its_input():
    started = asyncio.Event()
    asked: list[str] = []

    async def reply(request: LlmRequest) -> str:
        asked.append(text(request.contents[-1]))
        if len(asked) == 1:
            started.set()
            await asyncio.Event().wait()
        return "answer"

    calls = Calls()
    calls.hanging = started
    writer = LlmAgent(name="writer", model=FunctionModel(reply))
    before = calls.step("before", lambda x: "topic")
    runner = TestRunner(Workflow(name="wf", edges=[(START, before, writer)]))
    invocation = await interrupt_when(runner, calls)
    resumed = await runner.resume(invocation)
    assert calls.ran == ["before"]
    assert asked == ["topic", "topic"]
    answers = [e for e in resumed if e.author == "writer" and e.content is not None]
    assert [text(e.content) for e in answers] == ["answer"]
    assert (await runner.state())["outcome:wf"]["status"] == "success"


async def test_a_nested_workflow_resumes_inside():
    calls = Calls(hang="inner_b")
    inner = Workflow(
        name="inner",
        edges=[
            (START, calls.step("inner_a", lambda x: "a"), calls.step("inner_b", lambda x: x + "b"))
        ],
    )
    outer = Workflow(
        name="outer",
        edges=[
            (
                START,
                calls.step("first", lambda x: "1"),
                inner,
                calls.step("last", lambda x: x + "!"),
            )
        ],
    )
    runner = TestRunner(outer)
    invocation = await interrupt_when(runner, calls)
    resumed = await runner.resume(invocation)
    assert calls.ran == ["first", "inner_a", "inner_b", "inner_b", "last"]
    assert outputs(resumed) == [("inner_b", "ab"), ("last", "ab!")]


async def test_a_paused_workflow_resumed_as_interrupted_keeps_waiting():
    def ask(node_input: Any) -> RequestInput:
        return RequestInput(message="Colour?")

    calls = Calls()
    runner = TestRunner(
        Workflow(name="wf", edges=[(START, calls.step("a"), ask, calls.step("paint"))])
    )
    first = await runner.run("go")
    resumed = await runner.resume(first[0].invocation_id)
    assert calls.ran == ["a"]
    assert outputs(resumed) == []
    assert any((e.custom_metadata or {}).get("workflow_paused") for e in resumed)


async def test_unknown_invocation_fails_clearly():
    runner = TestRunner(Workflow(name="wf", edges=[(START, Calls().step("a"))]))
    await runner.run("go")
    with pytest.raises(InvocationNotFoundError, match="no invocation 'e-missing'"):
        await runner.resume("e-missing")


async def test_invocation_of_another_session_fails_clearly():
    runner = TestRunner(Workflow(name="wf", edges=[(START, Calls().step("a"))]))
    first = await runner.run("go")
    other = TestRunner(
        Workflow(name="wf", edges=[(START, Calls().step("a"))]), session_id="other_session"
    )
    other.session_service = runner.session_service
    with pytest.raises(InvocationNotFoundError, match="has no invocation"):
        await other.resume(first[0].invocation_id)


async def test_a_workflow_changed_so_a_finished_node_is_gone_fails_naming_it():
    calls = Calls(hang="b")
    a = calls.step("a")
    b = calls.step("b")
    runner = TestRunner(Workflow(name="wf", edges=[(START, a, b)]))
    invocation = await interrupt_when(runner, calls)
    changed = TestRunner(Workflow(name="wf", edges=[(START, calls.step("z"), b)]))
    changed.session_service = runner.session_service
    changed._created = True  # the same session, after a deploy that changed the graph
    with pytest.raises(WorkflowConfigurationError, match=r"node 'a'.*no longer in its graph"):
        await changed.resume(invocation)
    assert calls.ran == ["a", "b"]


async def test_a_rerun_node_gets_its_finished_dynamic_nodes_back():
    calls = Calls(hang="part_3")
    parts = {i: calls.step(f"part_{i}", lambda x: x * 10) for i in (1, 2, 3)}

    async def fan(ctx: Any, node_input: Any) -> int:
        calls.ran.append("fan")
        total = 0
        for i in (1, 2, 3):
            total += await ctx.run_node(parts[i], i)
        return total

    runner = TestRunner(Workflow(name="wf", edges=[(START, node(fan, name="fan"))]))
    invocation = await interrupt_when(runner, calls)
    resumed = await runner.resume(invocation)
    # fan runs again; parts 1 and 2 had finished: their outputs come back, not run again
    assert calls.ran == ["fan", "part_1", "part_2", "part_3", "fan", "part_3"]
    assert outputs(resumed) == [("part_3", 30), ("fan", 60)]


async def test_an_invocation_cut_off_after_a_clients_answer_goes_on_from_that_pause():
    calls = Calls(hang="paint")

    def ask(node_input: Any) -> RequestInput:
        calls.ran.append("ask")
        return RequestInput(message="Colour?")

    runner = TestRunner(
        Workflow(
            name="wf",
            edges=[(START, calls.step("a"), node(ask, name="ask"), calls.step("paint"))],
        )
    )
    [request] = input_requests(await runner.run("go"))
    await runner._ensure_session()
    task = asyncio.create_task(runner.run(answer_input(request, {"result": "blue"})))
    await asyncio.wait_for(calls.hanging.wait(), 5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    events = (await runner.session()).events
    answered = events[-1].invocation_id
    assert answered != events[0].invocation_id
    resumed = await runner.resume(answered)
    assert calls.ran == ["a", "ask", "paint", "paint"]  # a and ask not run again
    assert outputs(resumed) == [("paint", "paint(blue)")]


async def test_a_workflow_in_a_loop_resumes_its_cut_off_round_only():
    from pyadk.agents import LoopAgent

    calls = Calls()
    rounds: list[int] = []

    async def b(node_input: Any) -> str:
        rounds.append(len(rounds) + 1)
        calls.ran.append("b")
        if len(rounds) == 2:  # the second round is cut off here
            calls.hanging.set()
            await asyncio.Event().wait()
        return "B"

    wf = Workflow(name="wf", edges=[(START, calls.step("a", lambda x: "A"), node(b, name="b"))])
    runner = TestRunner(LoopAgent(name="loop", sub_agents=[wf], max_iterations=2))
    invocation = await interrupt_when(runner, calls)
    assert calls.ran == ["a", "b", "a", "b"]
    resumed = await runner.resume(invocation)
    # round 2's a had finished: not run again; its b runs again; round 1 is not replayed
    assert calls.ran == ["a", "b", "a", "b", "b"]
    assert outputs(resumed) == [("b", "B")]


async def test_a_node_that_asked_before_the_interruption_keeps_waiting_for_that_answer():
    calls = Calls(hang="slow")

    def ask(node_input: Any) -> RequestInput:
        calls.ran.append("ask")
        return RequestInput(message="Colour?")

    join = JoinNode(name="join")
    runner = TestRunner(
        Workflow(
            name="wf",
            edges=[
                (START, (node(ask, name="ask"), calls.step("slow", lambda x: "S")), join),
                (join, calls.step("end", lambda x: f"{x['ask']}+{x['slow']}")),
            ],
        )
    )
    invocation = await interrupt_when(runner, calls)
    [request] = input_requests((await runner.session()).events)
    resumed = await runner.resume(invocation)
    assert calls.ran == ["ask", "slow", "slow"]  # ask is not asked again
    assert input_requests(resumed) == []
    assert any((e.custom_metadata or {}).get("workflow_paused") for e in resumed)
    answered = await runner.run(answer_input(request, {"result": "blue"}))
    assert outputs(answered)[-1] == ("end", "blue+S")
    assert calls.ran == ["ask", "slow", "slow", "end"]
