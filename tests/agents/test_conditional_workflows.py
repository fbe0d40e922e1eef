"""Run-time control flow from state: ``until`` on Sequential/Loop agents, RouterAgent."""

from __future__ import annotations

import pytest
from agent_support import failing, llm, outcome_statuses
from test_workflow_pause import Ledger, approve, texts

from pyadk.agents import LoopAgent, ReadonlyContext, RouterAgent, SequentialAgent
from pyadk.testing import TestRunner, simplify_events


def stage(name: str, reply: str, key: str) -> object:
    """An agent whose answer is stored in state under ``key``."""
    return llm(name, reply, output_key=key)


# -- SequentialAgent(until=...) --------------------------------------------------------------


async def test_a_sequence_stops_once_until_holds_and_records_the_rest_as_skipped():
    triage = stage("triage", "spam", "verdict")
    draft, send = llm("draft", "Dear..."), llm("send", "sent")
    flow = SequentialAgent(
        name="flow",
        sub_agents=[triage, draft, send],
        until=lambda ctx: ctx.state.get("verdict") == "spam",
    )
    runner = TestRunner(flow)
    events = await runner.run("an email")
    assert simplify_events(events) == [("triage", "spam")]
    assert outcome_statuses(events) == {"draft": "skipped", "send": "skipped"}
    session = await runner.session()
    assert session.state["outcome:draft"]["reason"] == "skipped because flow's until held"
    assert draft.model.call_count == send.model.call_count == 0


async def test_a_sequence_runs_every_step_while_until_is_false_and_finally_agents_run():
    seen: list[dict] = []

    def until(ctx: ReadonlyContext) -> bool:
        seen.append(dict(ctx.state))
        return False

    fin = llm("fin", "cleaned")
    flow = SequentialAgent(
        name="flow",
        sub_agents=[stage("a", "A", "a"), stage("b", "B", "b")],
        until=until,
        finally_agents=[fin],
    )
    events = await TestRunner(flow).run("go")
    assert simplify_events(events) == [("a", "A"), ("b", "B"), ("fin", "cleaned")]
    assert [sorted(s) for s in seen] == [["a"], ["a", "b"]]  # checked after each step


async def test_until_may_be_async_and_read_outcomes():
    async def a_failed(ctx: ReadonlyContext) -> bool:
        outcome = ctx.outcome_of("a")
        return outcome is not None and outcome.failed

    b = llm("b", "B")
    flow = SequentialAgent(name="flow", sub_agents=[failing("a"), b], until=a_failed)
    events = await TestRunner(flow).run("go")
    assert outcome_statuses(events)["b"] == "skipped"
    assert b.model.call_count == 0


async def test_an_until_that_raises_fails_the_sequence_with_its_error():
    def broken(ctx: ReadonlyContext) -> bool:
        raise KeyError("verdict")

    flow = SequentialAgent(name="flow", sub_agents=[llm("a", "A"), llm("b", "B")], until=broken)
    runner = TestRunner(flow)
    with pytest.raises(KeyError, match="verdict"):
        await runner.run("go")
    session = await runner.session()
    assert session.state["outcome:flow"]["status"] == "failure"


# -- LoopAgent(until=...) --------------------------------------------------------------------


async def test_a_loop_ends_when_until_holds_without_any_tool_call():
    scores = iter(["3", "6", "9", "10"])
    writer = llm("writer", "v1", "v2", "v3", "v4")
    critic = llm("critic", *scores, output_key="score")
    loop = LoopAgent(
        name="refine",
        sub_agents=[writer, critic],
        max_iterations=10,
        until=lambda ctx: int(ctx.state.get("score", 0)) >= 9,
    )
    events = await TestRunner(loop).run("write")
    assert simplify_events(events) == [
        ("writer", "v1"),
        ("critic", "3"),
        ("writer", "v2"),
        ("critic", "6"),
        ("writer", "v3"),
        ("critic", "9"),
    ]


async def test_until_ends_the_loop_mid_round_and_only_the_nearest_loop():
    inner = LoopAgent(
        name="inner",
        sub_agents=[llm("flag", "done", "done", output_key="flag"), llm("never", "x")],
        until=lambda ctx: ctx.state.get("flag") == "done",
    )
    outer = LoopAgent(name="outer", sub_agents=[inner, llm("tail", "t1", "t2")], max_iterations=2)
    events = await TestRunner(outer).run("go")
    assert simplify_events(events) == [
        ("flag", "done"),
        ("tail", "t1"),
        ("flag", "done"),
        ("tail", "t2"),
    ]


async def test_max_iterations_still_bounds_a_loop_whose_until_never_holds():
    loop = LoopAgent(
        name="loop", sub_agents=[llm("a", "1", "2", "3")], max_iterations=2, until=lambda c: False
    )
    assert simplify_events(await TestRunner(loop).run("go")) == [("a", "1"), ("a", "2")]


# -- RouterAgent -----------------------------------------------------------------------------


def router(route, *names: str, **kwargs) -> RouterAgent:
    return RouterAgent(
        name="router",
        route=route,
        sub_agents=[llm(n, f"{n} answered") for n in names],
        **kwargs,
    )


async def test_the_router_runs_the_agent_its_route_picks_from_state():
    flow = SequentialAgent(
        name="flow",
        sub_agents=[
            stage("classify", "billing", "topic"),
            router(lambda ctx: ctx.state["topic"], "billing", "tech"),
        ],
    )
    runner = TestRunner(flow)
    events = await runner.run("my invoice is wrong")
    assert simplify_events(events) == [("classify", "billing"), ("billing", "billing answered")]
    assert outcome_statuses(events) == {"tech": "skipped"}
    session = await runner.session()
    assert session.state["outcome:tech"]["reason"] == "not picked by router router"


async def test_the_router_runs_several_picks_in_order_or_none():
    picked = router(lambda ctx: ["c", "a"], "a", "b", "c")
    events = await TestRunner(picked).run("go")
    assert simplify_events(events) == [("c", "c answered"), ("a", "a answered")]
    assert outcome_statuses(events) == {"b": "skipped"}

    async def nothing(ctx: ReadonlyContext) -> None:
        return None

    events = await TestRunner(router(nothing, "a", "b")).run("go")
    assert simplify_events(events) == []
    assert outcome_statuses(events) == {"a": "skipped", "b": "skipped"}


async def test_a_route_naming_an_unknown_agent_is_a_clear_error():
    runner = TestRunner(router(lambda ctx: "sales", "billing", "tech"))
    with pytest.raises(ValueError, match=r"route returned 'sales'.*\(billing, tech\)"):
        await runner.run("go")


async def test_the_routers_on_failure_policy_applies_to_its_picks():
    flow = RouterAgent(
        name="router",
        route=lambda ctx: ["a", "b"],
        sub_agents=[failing("a"), llm("b", "B")],
        on_failure="skip_rest",
    )
    events = await TestRunner(flow).run("go")
    assert outcome_statuses(events) == {"a": "failure", "b": "skipped", "router": "failure"}


async def test_an_answer_resumes_the_picked_agent_without_routing_again():
    ledger = Ledger()
    routes: list[str] = []

    def route(ctx: ReadonlyContext) -> str:
        routes.append("asked")
        return "payer"

    flow = SequentialAgent(
        name="flow",
        sub_agents=[
            RouterAgent(
                name="router",
                route=route,
                sub_agents=[ledger.payer(), ledger.talker("other")],
            ),
            ledger.talker("after"),
        ],
    )
    runner = TestRunner(flow)
    first = await runner.run("go")
    assert ledger.paid == [] and routes == ["asked"]
    resumed = await approve(runner, first)
    assert routes == ["asked"] and ledger.paid == [500]
    assert texts(resumed) == [("payer", "payer paid"), ("after", "after done")]
    assert "other" not in ledger.said
