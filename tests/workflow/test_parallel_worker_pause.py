"""Pausing inside a parallel_worker node: an item that waits for the client makes the
worker wait (no new item starts, running ones finish); the client's answer resumes the
waiting items only, finished items keep their outputs, the output list keeps input order."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from wf_support import input_requests, outputs, paths, pause_records

from pyadk import types
from pyadk.agents import LlmAgent
from pyadk.events import Event
from pyadk.models import LlmRequest
from pyadk.runners import Runner
from pyadk.sessions.sqlite_session_service import SqliteSessionService
from pyadk.testing import FunctionModel, TestRunner, function_call
from pyadk.tools import FunctionTool
from pyadk.tools.tool_confirmation import confirmation_answer, confirmation_requests
from pyadk.workflow import (
    START,
    Context,
    InputAnswerError,
    RequestInput,
    Workflow,
    node,
)


def answer(*pairs: tuple[types.FunctionCall, Any]) -> types.Content:
    """One message answering each request with its value."""
    parts = [
        types.Part(
            function_response=types.FunctionResponse(
                id=request.id, name=request.name, response={"result": value}
            )
        )
        for request, value in pairs
    ]
    return types.Content(role="user", parts=parts)


class Calls:
    """How often each item ran, and the most items running at once."""

    def __init__(self) -> None:
        self.ran: list[int] = []
        self.running = 0
        self.peak = 0
        self.summed: list[list[Any]] = []

    def items(self, *values: int) -> Any:
        def items(node_input: Any) -> list[int]:
            return list(values)

        return items

    def total(self) -> Any:
        def total(node_input: list[Any]) -> str:
            self.summed.append(node_input)
            return f"total {sum(node_input)}"

        return total


def asking_worker(calls: Calls, asks: set[int], max_parallel_workers: int | None = None) -> Any:
    """Squares its item (later items finish first); the items in ``asks`` ask the
    client for the value at once instead."""

    @node(parallel_worker=True, max_parallel_workers=max_parallel_workers)
    async def square(node_input: int) -> Any:
        calls.ran.append(node_input)
        if node_input in asks:
            return RequestInput(message=f"square of {node_input}?", response_schema=int)
        calls.running += 1
        calls.peak = max(calls.peak, calls.running)
        try:
            await asyncio.sleep(0.005 * (5 - node_input))
        finally:
            calls.running -= 1
        return node_input**2

    return square


def flow(calls: Calls, worker: Any, *values: int) -> Workflow:
    return Workflow(name="wf", edges=[(START, calls.items(*values), worker, calls.total())])


async def test_one_waiting_item_pauses_the_workflow_and_its_answer_resumes_only_that_item():
    calls = Calls()
    runner = TestRunner(flow(calls, asking_worker(calls, {2}), 1, 2, 3))
    first = await runner.run("go")
    # The other items ran to their end; the worker and what follows it wait.
    assert sorted(calls.ran) == [1, 2, 3] and calls.summed == []
    [request] = input_requests(first)
    assert request.args["message"] == "square of 2?"
    assert paths([e for e in first if e.get_function_calls()]) == ["wf@1/square@1/square@2"]
    assert ("square", 1) in outputs(first) and ("square", 9) in outputs(first)
    [record] = pause_records(first)
    assert list(record["waiting"]) == ["square"]
    items = record["waiting"]["square"]["dynamic"]
    assert items["wf@1/square@1/square@1"] == {"output": 1, "has_output": True}
    assert items["wf@1/square@1/square@2"]["interrupts"] == [request.id]
    assert first[-1].custom_metadata and "workflow_paused" in first[-1].custom_metadata

    resumed = await runner.run(answer((request, "4")))
    assert sorted(calls.ran) == [1, 2, 3]  # no item ran again: the answer is item 2's output
    assert outputs(resumed) == [
        ("square", 4),  # the answered item, at its own path
        ("square", [1, 4, 9]),  # the worker's output, in input order
        ("total", "total 14"),
    ]
    assert paths(resumed)[:2] == ["wf@1/square@1/square@2", "wf@1/square@1"]
    assert pause_records(resumed) == []


async def test_an_item_rerun_on_resume_runs_again_and_the_others_do_not():
    ran: list[tuple[str, dict[str, Any]]] = []

    @node(parallel_worker=True, rerun_on_resume=True)
    def label(node_input: str, ctx: Context) -> Any:
        ran.append((node_input, dict(ctx.resume_inputs)))
        if node_input == "b" and "name" not in ctx.resume_inputs:
            return RequestInput(interrupt_id="name", message="Name for b?")
        return f"{node_input}={ctx.resume_inputs.get('name', node_input)}"

    def items(node_input: Any) -> list[str]:
        return ["a", "b", "c"]

    runner = TestRunner(Workflow(name="wf", edges=[(START, items, label)]))
    [request] = input_requests(await runner.run("go"))
    resumed = await runner.run(answer((request, "bee")))
    assert sorted(r[0] for r in ran) == ["a", "b", "b", "c"]
    assert ran[-1] == ("b", {"name": "bee"})
    assert outputs(resumed) == [("label", "b=bee"), ("label", ["a=a", "b=bee", "c=c"])]


async def test_no_item_starts_after_one_waits_and_running_items_finish():
    calls = Calls()
    worker = asking_worker(calls, {1}, max_parallel_workers=2)
    runner = TestRunner(flow(calls, worker, 1, 2, 3, 4))
    first = await runner.run("go")
    # Items 1 and 2 started together: 1 asked at once, 2 ran to its end; 3 and 4 never
    # started in this turn.
    assert sorted(calls.ran) == [1, 2]
    assert ("square", 4) in outputs(first)
    [request] = input_requests(first)
    [record] = pause_records(first)
    assert sorted(record["waiting"]["square"]["dynamic"]) == [
        "wf@1/square@1/square@1",
        "wf@1/square@1/square@2",
    ]

    resumed = await runner.run(answer((request, 10)))
    # The items not started run now, still two at a time; item 2 does not run again.
    assert sorted(calls.ran) == [1, 2, 3, 4] and calls.peak == 2
    assert outputs(resumed)[-2:] == [("square", [10, 4, 9, 16]), ("total", "total 39")]
    assert sorted(p for p in paths(resumed) if p.count("/") == 2) == [
        "wf@1/square@1/square@1",
        "wf@1/square@1/square@3",
        "wf@1/square@1/square@4",
    ]


async def test_a_waiting_item_stops_the_next_items_but_not_the_running_ones():
    finished: list[int] = []

    @node(parallel_worker=True, max_parallel_workers=2)
    async def step(node_input: int) -> Any:
        if node_input == 1:
            return RequestInput(message="first?")
        await asyncio.sleep(0.02)  # still running when item 1 waits
        finished.append(node_input)
        return node_input

    def items(node_input: Any) -> list[int]:
        return [1, 2, 3]

    runner = TestRunner(Workflow(name="wf", edges=[(START, items, step)]))
    [request] = input_requests(await runner.run("go"))
    assert finished == [2]  # not cancelled; item 3 not started
    resumed = await runner.run(answer((request, "one")))
    assert finished == [2, 3]
    assert outputs(resumed)[-1] == ("step", ["one", 2, 3])


async def test_two_waiting_items_both_ask_and_each_answer_resumes_its_item():
    calls = Calls()
    runner = TestRunner(flow(calls, asking_worker(calls, {1, 3}), 1, 2, 3))
    first = await runner.run("go")
    asked = {r.args["message"]: r for r in input_requests(first)}
    assert sorted(asked) == ["square of 1?", "square of 3?"]  # both reach the client
    [record] = pause_records(first)
    assert sorted(record["waiting"]["square"]["interrupts"]) == sorted(r.id for r in asked.values())

    second = await runner.run(answer((asked["square of 3?"], 30)))
    assert outputs(second) == [("square", 30)]  # item 3 done; item 1 still waits
    [record] = pause_records(second)
    assert record["waiting"]["square"]["interrupts"] == [asked["square of 1?"].id]
    assert calls.summed == []

    third = await runner.run(answer((asked["square of 1?"], 10)))
    assert outputs(third) == [("square", 10), ("square", [10, 4, 30]), ("total", "total 44")]
    assert sorted(calls.ran) == [1, 2, 3]  # nothing ran twice
    assert pause_records(third) == []


async def test_answering_every_waiting_item_at_once_finishes_in_one_turn():
    calls = Calls()
    runner = TestRunner(flow(calls, asking_worker(calls, {1, 2}), 1, 2, 3))
    one, two = sorted(input_requests(await runner.run("go")), key=lambda r: r.args["message"])
    done = await runner.run(answer((one, 7), (two, 8)))
    assert outputs(done)[-2:] == [("square", [7, 8, 9]), ("total", "total 24")]
    assert calls.summed == [[7, 8, 9]]


def payer_agent(paid: list[int], approvals_asked: list[int]) -> LlmAgent:
    """Pays the amount its input names, once the client approves the call."""

    def pay(amount: int) -> dict[str, Any]:
        """Pays."""
        paid.append(amount)
        return {"paid": amount}

    def reply(request: LlmRequest) -> Any:
        last = request.contents[-1].parts[0]
        if last.function_response is not None:
            return f"done: {last.function_response.response}"
        amount = int((last.text or "0").split()[-1])
        approvals_asked.append(amount)
        return function_call("pay", {"amount": amount})

    return LlmAgent(
        name="payer",
        model=FunctionModel(reply),
        tools=[FunctionTool(pay, require_confirmation=True)],
    )


async def test_an_agent_worker_waits_for_approvals_and_each_resumes_its_own_item():
    paid: list[int] = []
    asked: list[int] = []

    def bills(node_input: Any) -> list[str]:
        return ["pay 10", "pay 20"]

    worker = node(payer_agent(paid, asked), parallel_worker=True)
    runner = TestRunner(Workflow(name="wf", edges=[(START, bills, worker)]))
    first = await runner.run("go")
    requests = {
        r.args["originalFunctionCall"]["args"]["amount"]: r
        for e in first
        for r in confirmation_requests(e)
    }
    assert sorted(requests) == [10, 20] and paid == []
    assert {e.branch for e in first if confirmation_requests(e)} == {
        "wf.payer@1",
        "wf.payer@2",
    }

    second = await runner.run(confirmation_answer(requests[20], confirmed=True))
    assert paid == [20] and pause_records(second)  # item 1 still waits
    assert outputs(second) == []

    third = await runner.run(confirmation_answer(requests[10], confirmed=True))
    assert paid == [20, 10] and sorted(asked) == [10, 20]  # each model asked once
    assert outputs(third) == [("payer", ["done: {'paid': 10}", "done: {'paid': 20}"])]


async def test_a_tool_worker_asks_approval_per_item():
    paid: list[int] = []

    def pay(amount: int) -> dict[str, Any]:
        """Pays."""
        paid.append(amount)
        return {"paid": amount}

    def amounts(node_input: Any) -> list[int]:
        return [5, 6]

    worker = node(FunctionTool(pay, require_confirmation=True), parallel_worker=True)
    runner = TestRunner(Workflow(name="wf", edges=[(START, amounts, worker)]))
    first = input_requests(await runner.run("go"))
    by_amount = {r.args["payload"]["args"]["amount"]: r for r in first}
    assert sorted(by_amount) == [5, 6] and paid == []
    done = await runner.run(
        answer((by_amount[5], {"confirmed": True}), (by_amount[6], {"confirmed": False}))
    )
    assert paid == [5]
    assert outputs(done)[-1] == ("pay", [{"paid": 5}, {"error": "This tool call is rejected."}])


async def test_a_paused_worker_resumes_after_a_restart_on_sqlite(tmp_path: Path):
    db = str(tmp_path / "sessions.db")

    async def turn(calls: Calls, message: types.Content) -> list[Event]:
        runner = Runner(
            app_name="app",
            agent=flow(calls, asking_worker(calls, {2}), 1, 2, 3),
            session_service=SqliteSessionService(db),
            auto_create_session=True,
        )
        return [e async for e in runner.run_async(user_id="u", session_id="s", new_message=message)]

    [request] = input_requests(await turn(Calls(), types.UserContent("go")))
    calls = Calls()  # a new process: new agents, runner and service, the same file
    done = await turn(calls, answer((request, 4)))
    assert calls.ran == [] and calls.summed == [[1, 4, 9]]
    assert outputs(done)[-1] == ("total", "total 14")


async def test_an_answer_that_does_not_fit_is_refused_and_the_item_still_waits():
    calls = Calls()
    runner = TestRunner(flow(calls, asking_worker(calls, {2}), 1, 2, 3))
    [request] = input_requests(await runner.run("go"))
    with pytest.raises(InputAnswerError, match="does not fit"):
        await runner.run(answer((request, "four")))
    assert calls.summed == []
    resumed = await runner.run(answer((request, 4)))
    assert outputs(resumed)[-1] == ("total", "total 14")
    assert sorted(calls.ran) == [1, 2, 3]


async def test_a_failing_item_fails_the_worker_even_when_another_waits():
    @node(parallel_worker=True)
    async def check(node_input: int) -> Any:
        if node_input == 1:
            return RequestInput(message="ok?")
        await asyncio.sleep(0.01)
        raise ValueError(f"item {node_input} is bad")

    def items(node_input: Any) -> list[int]:
        return [1, 2]

    runner = TestRunner(Workflow(name="wf", edges=[(START, items, check)]))
    with pytest.raises(ValueError, match="item 2 is bad"):
        await runner.run("go")
    assert (await runner.state())["outcome:wf"]["status"] == "failure"


async def test_an_item_waiting_in_its_own_dynamic_node_resumes_through_the_worker():
    ran: list[str] = []

    def ask(node_input: int) -> RequestInput:
        ran.append(f"ask {node_input}")
        return RequestInput(message=f"factor for {node_input}?", response_schema=int)

    @node(parallel_worker=True)
    async def scale(node_input: int, ctx: Context) -> int:
        ran.append(f"scale {node_input}")
        if node_input == 2:
            return node_input * await ctx.run_node(ask, node_input)
        return node_input

    def items(node_input: Any) -> list[int]:
        return [1, 2]

    runner = TestRunner(Workflow(name="wf", edges=[(START, items, scale)]))
    first = await runner.run("go")
    [request] = input_requests(first)
    assert paths([e for e in first if e.get_function_calls()]) == ["wf@1/scale@1/scale@2/ask@1"]
    resumed = await runner.run(answer((request, 5)))
    assert ran == ["scale 1", "scale 2", "ask 2", "scale 2"]
    assert outputs(resumed)[-1] == ("scale", [1, 10])
