"""Resuming an invocation cut off by a crash: ``Runner.run_async(invocation_id=...)``."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from interrupted_app import payer, said, workflow

from pyadk import types
from pyadk.agents import LlmAgent, ParallelAgent, SequentialAgent
from pyadk.agents.interrupted import InvocationNotFoundError, InvocationNotInterruptedError
from pyadk.events import Event
from pyadk.runners import Runner
from pyadk.sessions import SqliteSessionService
from pyadk.testing import FunctionModel, TestRunner, function_call
from pyadk.tools import FunctionTool
from pyadk.tools.tool_confirmation import confirmation_answer, confirmation_requests

HERE = Path(__file__).parent


async def interrupt_at(runner: TestRunner, message: str, stop: Any) -> str:
    """Runs a turn until ``stop(event)`` holds, then cuts it off (as a dropped client or
    a stopped server would); returns the invocation's id."""
    await runner._ensure_session()
    events = runner.run_async(
        user_id=runner.user_id,
        session_id=runner.session_id,
        new_message=types.UserContent(message),
    )
    async for event in events:
        if stop(event):
            await events.aclose()
            return event.invocation_id
    raise AssertionError("the turn ended before the stop point")


def calls_pay(event: Any) -> bool:
    return any(c.name == "pay" for c in event.get_function_calls())


def nth_pay_call(n: int) -> Callable[[Any], bool]:
    """A stop point: once the ``n``-th call of ``pay`` was stored."""
    seen = 0

    def stop(event: Any) -> bool:
        nonlocal seen
        seen += calls_pay(event)
        return seen == n

    return stop


def lookup(amount: int) -> dict:
    """Looks up (harmless to run again)."""
    return {"ok": amount}


def both_started() -> Callable[[Any], bool]:
    """A stop point: once ``quick`` answered and the payer's call was stored."""
    seen: set[str] = set()

    def stop(event: Any) -> bool:
        seen.update(
            ["quick"] if event.text == "quick done" else ["pay"] if calls_pay(event) else []
        )
        return seen == {"quick", "pay"}

    return stop


def requests_in(events: list[Any]) -> list[Any]:
    """The approval requests among ``events`` (outcome events may follow them)."""
    return [request for event in events for request in confirmation_requests(event)]


def texts(events: list[Any]) -> list[tuple[str, str]]:
    return [(e.author, e.text) for e in events if e.text]


async def test_a_cut_off_payment_is_held_for_approval_and_earlier_steps_do_not_run_again():
    log: list[str] = []
    paid: list[int] = []

    def pay(amount: int) -> dict:
        """Pays."""
        paid.append(amount)
        return {"paid": amount}

    runner = TestRunner(workflow(log, pay))
    invocation = await interrupt_at(runner, "check out", calls_pay)
    assert log == ["prepare", "payer"] and paid == []

    resumed = await runner.resume(invocation)
    assert log == ["prepare", "payer"] and paid == []  # nothing ran again, nothing paid
    assert all(e.invocation_id == invocation for e in resumed)
    [request] = requests_in(resumed)
    assert "pay(amount=500) was cut off by an interruption" in str(request.args)

    answered = await runner.run(confirmation_answer(request, confirmed=True))
    assert paid == [500]
    assert log == ["prepare", "payer", "payer saw {'paid': 500}", "receipt"]
    assert texts(answered) == [("payer", "payer done"), ("receipt", "receipt sent")]


async def test_a_rejected_cut_off_call_is_never_run():
    log: list[str] = []
    paid: list[int] = []
    runner = TestRunner(workflow(log, lambda amount: paid.append(amount)))
    invocation = await interrupt_at(runner, "check out", calls_pay)
    [request] = requests_in(await runner.resume(invocation))
    await runner.run(confirmation_answer(request, confirmed=False))
    assert paid == []
    assert log[-2:] == ["payer saw {'error': 'This tool call is rejected.'}", "receipt"]


async def test_an_idempotent_call_runs_again_at_once_and_the_workflow_goes_on():
    log: list[str] = []
    looked_up: list[int] = []

    def price(amount: int) -> dict:
        """Looks up a price."""
        looked_up.append(amount)
        return {"price": amount}

    runner = TestRunner(workflow(log, price, idempotent=True))
    invocation = await interrupt_at(runner, "check out", calls_pay)
    resumed = await runner.resume(invocation)
    assert looked_up == [500]
    assert texts(resumed) == [("payer", "payer done"), ("receipt", "receipt sent")]
    assert log == ["prepare", "payer", "payer saw {'price': 500}", "receipt"]


async def test_a_step_that_had_finished_is_not_run_again():
    log: list[str] = []
    runner = TestRunner(workflow(log, lambda amount: {"paid": amount}, idempotent=True))
    invocation = await interrupt_at(runner, "check out", lambda e: e.text == "order ready")
    resumed = await runner.resume(invocation)
    assert log == ["prepare", "payer", "payer saw {'paid': 500}", "receipt"]
    assert texts(resumed) == [("payer", "payer done"), ("receipt", "receipt sent")]


async def test_resuming_a_finished_invocation_runs_nothing():
    log: list[str] = []
    runner = TestRunner(workflow(log, lambda amount: {"paid": amount}, idempotent=True))
    events = await runner.run("check out")
    before = len((await runner.session()).events)
    assert await runner.resume(events[-1].invocation_id) == []
    assert log.count("receipt") == 1
    assert len((await runner.session()).events) == before


async def test_an_invocation_cut_off_before_any_agent_ran_answers_its_message():
    log: list[str] = []
    runner = TestRunner(said(log, "solo", "hello"))
    await runner._ensure_session()
    invocation = "e-crashed"
    await runner.session_service.append_event(
        await runner.session(),
        _user_event(invocation, "hi there"),
    )
    resumed = await runner.resume(invocation)
    assert texts(resumed) == [("solo", "hello")]
    model = runner.agent.canonical_model
    assert model.requests[0].contents[-1].parts[0].text == "hi there"


def _user_event(invocation_id: str, text: str) -> Event:
    return Event(invocation_id=invocation_id, author="user", content=types.UserContent(text))


async def test_only_the_parallel_branches_that_had_not_finished_run_again():
    log: list[str] = []
    fan = ParallelAgent(
        name="fan",
        sub_agents=[said(log, "quick", "quick done"), payer(log, lookup, idempotent=True)],
    )
    runner = TestRunner(SequentialAgent(name="flow", sub_agents=[fan, said(log, "end", "end")]))
    invocation = await interrupt_at(runner, "go", both_started())
    log.clear()
    resumed = await runner.resume(invocation)
    assert log == ["payer saw {'ok': 500}", "end"]  # quick is not asked again
    assert texts(resumed) == [("payer", "payer done"), ("end", "end")]
    assert resumed[0].branch == "fan.payer"


async def test_a_transferred_to_agent_resumes_its_cut_off_call():
    log: list[str] = []
    specialist = payer(log, lookup, idempotent=True, name="billing")

    def route(request: Any) -> Any:
        log.append("front")
        return function_call("transfer_to_agent", {"agent_name": "billing"})

    front = LlmAgent(name="front", model=FunctionModel(route), sub_agents=[specialist])
    runner = TestRunner(front)
    invocation = await interrupt_at(runner, "refund", calls_pay)
    resumed = await runner.resume(invocation)
    assert log == ["front", "billing", "billing saw {'ok': 500}"]
    assert texts(resumed) == [("billing", "billing done")]


async def test_resume_refuses_unknown_and_waiting_invocations_and_a_message():
    log: list[str] = []
    runner = TestRunner(workflow(log, lambda amount: amount))
    with pytest.raises(InvocationNotFoundError, match="no invocation 'nope'"):
        await runner.resume("nope")

    gated = TestRunner(
        LlmAgent(
            name="gated",
            model=FunctionModel(lambda request: function_call("pay", {"amount": 1})),
            tools=[FunctionTool(lambda amount: amount, name="pay", require_confirmation=True)],
        )
    )
    events = await gated.run("pay")
    with pytest.raises(InvocationNotInterruptedError, match="waits for the client's answer"):
        await gated.resume(events[-1].invocation_id)

    with pytest.raises(ValueError, match="invocation_id alone"):
        async for _ in runner.run_async(
            user_id="u", session_id="s", invocation_id="x", new_message=types.UserContent("hi")
        ):
            pass


_CHILD = """
import asyncio, sys
sys.path.insert(0, {tests!r})
from interrupted_app import workflow
from pyadk import types
from pyadk.runners import Runner
from pyadk.sessions import SqliteSessionService

def pay(amount: int) -> dict:
    \"\"\"Pays.\"\"\"
    open({marker!r}, "w").write("paying")
    import time
    time.sleep(600)  # killed here, mid-payment

async def main():
    service = SqliteSessionService({db!r}, lease_ttl=0.5)
    runner = Runner(app_name="shop", agent=workflow([], pay), session_service=service)
    await service.create_session(app_name="shop", user_id="ada", session_id="s1")
    async for _ in runner.run_async(
        user_id="ada", session_id="s1", new_message=types.UserContent("check out")
    ):
        pass

asyncio.run(main())
"""


async def test_a_process_killed_mid_payment_resumes_from_its_sqlite_session(tmp_path: Path):
    db, marker = tmp_path / "sessions.db", tmp_path / "paying"
    script = textwrap.dedent(_CHILD).format(tests=str(HERE), marker=str(marker), db=str(db))
    child = subprocess.Popen([sys.executable, "-c", script], env={**os.environ})
    try:
        deadline = time.monotonic() + 60
        while not marker.exists():
            assert child.poll() is None, "the child process ended before paying"
            assert time.monotonic() < deadline, "the child never reached the payment"
            await asyncio.sleep(0.05)
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()

    log: list[str] = []
    paid: list[int] = []
    service = SqliteSessionService(db, lease_wait=10)
    runner = Runner(
        app_name="shop",
        agent=workflow(log, lambda amount: paid.append(amount) or {"paid": amount}),
        session_service=service,
    )
    stored = await service.get_session(app_name="shop", user_id="ada", session_id="s1")
    assert stored is not None
    invocation = stored.events[-1].invocation_id
    resumed = [
        e async for e in runner.run_async(user_id="ada", session_id="s1", invocation_id=invocation)
    ]
    assert log == [] and paid == []  # the stale lease expired; nothing ran again
    [request] = requests_in(resumed)
    answer = confirmation_answer(request, confirmed=True)
    finished = [
        e async for e in runner.run_async(user_id="ada", session_id="s1", new_message=answer)
    ]
    assert paid == [500]
    assert texts(finished) == [("payer", "payer done"), ("receipt", "receipt sent")]
    await service.close()


async def test_an_exit_loop_stored_just_before_the_interruption_still_ends_its_loop():
    from pyadk.agents import LoopAgent
    from pyadk.tools import exit_loop

    log: list[str] = []
    leaver = LlmAgent(
        name="leaver",
        model=FunctionModel(lambda request: log.append("leaver") or function_call("exit_loop")),
        tools=[exit_loop],
    )
    inner = SequentialAgent(name="round", sub_agents=[leaver, said(log, "never", "x")])
    loop = LoopAgent(name="loop", sub_agents=[inner], max_iterations=3)
    runner = TestRunner(SequentialAgent(name="job", sub_agents=[loop, said(log, "after", "ok")]))
    invocation = await interrupt_at(
        runner, "go", lambda e: bool(e.get_function_responses()) and e.actions.escalate
    )
    assert log == ["leaver"]
    resumed = await runner.resume(invocation)
    # as without the interruption: the round finishes, then the loop ends
    assert log == ["leaver", "never", "after"]
    assert texts(resumed) == [("never", "x"), ("after", "ok")]


async def test_a_router_resumed_mid_way_runs_its_remaining_picks():
    from pyadk.agents import RouterAgent

    log: list[str] = []
    router = RouterAgent(
        name="router",
        route=lambda ctx: ["first", "payer", "last"],
        sub_agents=[
            said(log, "first", "first done"),
            payer(log, lookup, idempotent=True),
            said(log, "last", "last done"),
            said(log, "unpicked", "never"),
        ],
    )
    runner = TestRunner(router)
    invocation = await interrupt_at(runner, "go", calls_pay)
    resumed = await runner.resume(invocation)
    assert log == ["first", "payer", "payer saw {'ok': 500}", "last"]
    assert texts(resumed) == [("payer", "payer done"), ("last", "last done")]


async def test_an_agent_that_finished_before_a_parallel_step_runs_again_in_the_next_round():
    from pyadk.agents import LoopAgent

    log: list[str] = []
    fan = ParallelAgent(
        name="fan",
        sub_agents=[said(log, "quick", "quick done"), payer(log, lookup, idempotent=True)],
    )
    loop = LoopAgent(name="rounds", sub_agents=[said(log, "intro", "hi"), fan], max_iterations=2)
    runner = TestRunner(loop)
    invocation = await interrupt_at(runner, "go", both_started())
    log.clear()
    await runner.resume(invocation)
    # round 1 goes on in the payer only; round 2 runs every agent again, intro included
    assert log[0] == "payer saw {'ok': 500}"
    assert sorted(log[1:]) == sorted(["intro", "quick", "payer", "payer saw {'ok': 500}"])


async def test_rounds_before_an_interruption_count_towards_max_iterations():
    from pyadk.agents import LoopAgent

    log: list[str] = []
    calls = 0

    def pay_twice(amount: int) -> dict:
        """Pays (harmless to run again)."""
        nonlocal calls
        calls += 1
        return {"ok": amount}

    loop = LoopAgent(
        name="rounds",
        sub_agents=[said(log, "intro", "hi"), payer(log, pay_twice, idempotent=True)],
        max_iterations=3,
    )
    runner = TestRunner(loop)
    invocation = await interrupt_at(runner, "go", nth_pay_call(2))
    assert log.count("intro") == 2  # cut off in round 2
    log.clear()
    await runner.resume(invocation)
    # round 2 goes on at the payer, then round 3, the last: 3 rounds in all
    assert log == ["payer saw {'ok': 500}", "intro", "payer", "payer saw {'ok': 500}"]


def nested_loops(log: list[str]) -> Any:
    """Two rounds of an intro and an inner loop, itself two rounds of a step and a payer."""
    from pyadk.agents import LoopAgent

    inner = LoopAgent(
        name="inner",
        sub_agents=[said(log, "step", "s"), payer(log, lookup, idempotent=True)],
        max_iterations=2,
    )
    return LoopAgent(name="outer", sub_agents=[said(log, "intro", "hi"), inner], max_iterations=2)


async def test_an_inner_loop_resumed_in_a_later_outer_round_counts_only_that_rounds_runs():
    log: list[str] = []
    runner = TestRunner(nested_loops(log))
    invocation = await interrupt_at(runner, "go", nth_pay_call(3))  # outer 2, inner 1
    log.clear()
    await runner.resume(invocation)
    # inner round 1 goes on at the payer, then inner round 2; the outer loop ends there
    assert log == ["payer saw {'ok': 500}", "step", "payer", "payer saw {'ok': 500}"]


async def test_an_inner_loop_not_yet_started_in_the_resumed_outer_round_runs_all_its_rounds():
    log: list[str] = []
    runner = TestRunner(nested_loops(log))
    intros = 0

    def second_intro(event: Any) -> bool:  # outer round 2, before the inner loop starts
        nonlocal intros
        intros += event.text == "hi"
        return intros == 2

    invocation = await interrupt_at(runner, "go", second_intro)
    log.clear()
    await runner.resume(invocation)
    assert log == ["step", "payer", "payer saw {'ok': 500}"] * 2
