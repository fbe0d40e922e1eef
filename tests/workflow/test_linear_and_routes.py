"""Running graphs of function nodes through a Runner: inputs, outputs, state, routes."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel
from wf_support import outputs, paths

from pyadk import types
from pyadk.events import Event
from pyadk.testing import TestRunner
from pyadk.workflow import (
    DEFAULT_ROUTE,
    START,
    Context,
    Edge,
    JoinNode,
    Workflow,
    WorkflowDataError,
    node_route,
)


async def test_linear_chain_passes_outputs_and_writes_one_event_per_node():
    seen: list[Any] = []

    def first(node_input: types.Content) -> str:
        seen.append(node_input)
        return f"first({node_input.parts[0].text})"

    async def second(node_input: str) -> str:
        return f"second({node_input})"

    def third(node_input: str) -> dict[str, str]:
        return {"result": node_input}

    wf = Workflow(name="wf", edges=[(START, first, second, third)])
    runner = TestRunner(wf)
    events = await runner.run("hello")
    assert isinstance(seen[0], types.Content)  # the user's message starts the graph
    assert outputs(events) == [
        ("first", "first(hello)"),
        ("second", "second(first(hello))"),
        ("third", {"result": "second(first(hello))"}),
    ]
    assert paths(events) == ["wf@1/first@1", "wf@1/second@1", "wf@1/third@1"]
    assert {e.author for e in events} == {"wf"}
    # Only the terminal node's output is the workflow's output.
    metadata = [e.custom_metadata or {} for e in events]
    assert [m["node_info"].get("output_for") for m in metadata] == [
        None,
        None,
        ["wf@1/third@1", "wf@1"],
    ]
    stored = (await runner.session()).events
    assert [e.author for e in stored] == ["user", "wf", "wf", "wf"]
    assert outputs(stored) == outputs(events)


class Profile(BaseModel):
    name: str
    age: int


async def test_state_parameters_ctx_writes_and_defaults():
    def greet(profile: Profile, ctx: Context, greeting: str = "hi") -> str:
        ctx.state["greeted"] = profile.name
        ctx.state["count"] = ctx.state.get("count", 0) + 1
        return f"{greeting} {profile.name} ({profile.age})"

    def check(count: int, greeted: str) -> str:  # sees what greet wrote
        return f"{greeted}:{count}"

    wf = Workflow(name="wf", edges=[(START, greet, check)])
    runner = TestRunner(wf, state={"profile": {"name": "Ada", "age": 36}})
    events = await runner.run("go")
    assert outputs(events) == [("greet", "hi Ada (36)"), ("check", "Ada:1")]
    assert events[0].actions.state_delta == {"greeted": "Ada", "count": 1}
    state = await runner.state()
    assert state["greeted"] == "Ada" and state["count"] == 1


async def test_none_output_writes_no_event_but_state_alone_is_saved():
    def quiet() -> None:
        return None

    def stateful(ctx: Context) -> None:
        ctx.state["touched"] = True

    def last(node_input: Any) -> str:
        return f"got {node_input!r}"

    wf = Workflow(name="wf", edges=[(START, quiet, stateful, last)])
    runner = TestRunner(wf)
    events = await runner.run("x")
    assert paths(events) == ["wf@1/stateful@1", "wf@1/last@1"]
    assert events[0].actions.state_delta == {"touched": True}
    assert outputs(events) == [("last", "got None")]
    assert (await runner.state())["touched"] is True


async def test_a_generator_node_yields_events_and_one_output():
    async def produce(ctx: Context):
        yield Event(author="produce", content=types.ModelContent("working"))
        yield "result"

    def consume(node_input: str) -> str:
        return node_input.upper()

    wf = Workflow(name="wf", edges=[(START, produce, consume)])
    events = await TestRunner(wf).run("x")
    assert [e.text for e in events if e.content] == ["working"]
    assert outputs(events) == [("produce", "result"), ("consume", "RESULT")]


async def test_a_second_output_fails_the_node():
    def twice():
        yield "one"
        yield "two"

    runner = TestRunner(Workflow(name="wf", edges=[(START, twice)]))
    with pytest.raises(WorkflowDataError, match="'twice' produced a second output"):
        await runner.run("x")
    assert outputs((await runner.session()).events) == [("twice", "one")]


async def test_routes_pick_edges_and_default_route_catches_the_rest():
    def classify(node_input: types.Content, ctx: Context) -> str:
        text = node_input.parts[0].text or ""
        ctx.route = "question" if text.endswith("?") else "other"
        return text

    def answer(node_input: str) -> str:
        return f"answer to {node_input}"

    def spam(node_input: str) -> str:
        return "spam"

    def fallback(node_input: str) -> str:
        return f"noted {node_input}"

    wf = Workflow(
        name="wf",
        edges=[(START, classify, {"question": answer, "spam": spam, DEFAULT_ROUTE: fallback})],
    )
    runner = TestRunner(wf)
    events = await runner.run("why?")
    assert outputs(events) == [("classify", "why?"), ("answer", "answer to why?")]
    assert node_route(events[0]) == "question"
    events = await runner.run("ok")
    assert outputs(events) == [("classify", "ok"), ("fallback", "noted ok")]


async def test_a_route_list_matches_edges_of_any_listed_route():
    def pick(ctx: Context) -> str:
        ctx.route = ["b", "c"]
        return "picked"

    def a(node_input: str) -> str:
        return "a"

    def b(node_input: str) -> str:
        return "b"

    def c(node_input: str) -> str:
        return "c"

    join = JoinNode(name="join")
    wf = Workflow(
        name="wf",
        edges=[
            (START, pick, {"a": a, "b": b}),
            Edge(from_node=pick, to_node=c, route=["c", "z"]),
            ((a, b, c), join),
        ],
    )
    events = await TestRunner(wf).run("x")
    wf_outputs = outputs(events)
    assert wf_outputs[0] == ("pick", "picked")
    assert sorted(wf_outputs[1:3]) == [("b", "b"), ("c", "c")]
    # a was not routed to, so the join waits for it forever: the run just ends.
    assert len(wf_outputs) == 3


async def test_no_matching_route_ends_the_branch():
    def pick(ctx: Context) -> str:
        ctx.route = "nowhere"
        return "picked"

    def never() -> str:
        raise AssertionError("not reached")

    wf = Workflow(name="wf", edges=[(START, pick, {"x": never})])
    assert outputs(await TestRunner(wf).run("x")) == [("pick", "picked")]


async def test_route_without_output_is_recorded_on_its_own_event():
    def decide(ctx: Context) -> None:
        ctx.route = True

    def yes(node_input: Any) -> str:
        return f"yes {node_input!r}"

    wf = Workflow(name="wf", edges=[(START, decide, {True: yes, False: decide})])
    events = await TestRunner(wf).run("x")
    assert node_route(events[0]) is True
    assert outputs(events) == [("yes", "yes None")]


async def test_a_loop_via_a_routed_edge_runs_until_its_bound():
    def step(ctx: Context, rounds: int = 0) -> int:
        ctx.state["rounds"] = rounds + 1
        ctx.route = "again" if rounds + 1 < 3 else "done"
        return rounds + 1

    def finish(node_input: int) -> str:
        return f"finished after {node_input}"

    wf = Workflow(name="wf", edges=[(START, step, {"again": step, "done": finish})])
    runner = TestRunner(wf)
    events = await runner.run("go")
    assert outputs(events) == [
        ("step", 1),
        ("step", 2),
        ("step", 3),
        ("finish", "finished after 3"),
    ]
    assert paths(events) == ["wf@1/step@1", "wf@1/step@2", "wf@1/step@3", "wf@1/finish@1"]
    assert (await runner.state())["rounds"] == 3


async def test_a_workflow_without_edges_runs_nothing():
    events = await TestRunner(Workflow(name="empty")).run("x")
    assert outputs(events) == []


async def test_parameters_are_validated_against_their_annotations():
    seen: dict[str, Any] = {}

    def as_text(node_input: str) -> dict[str, str]:
        seen["text"] = node_input  # the user's message, as its text
        return {"name": "Bo", "age": "41"}

    def as_model(node_input: Profile) -> int:
        seen["model"] = node_input  # dict -> Profile ("41" -> 41)
        return node_input.age

    def as_any(node_input: Any, limit: float) -> float:
        return node_input / limit

    wf = Workflow(name="wf", edges=[(START, as_text, as_model, as_any)])
    runner = TestRunner(wf, state={"limit": "2"})  # a numeric string fits float
    events = await runner.run("hello there")
    assert seen["text"] == "hello there"
    assert seen["model"] == Profile(name="Bo", age=41)
    assert outputs(events)[-1] == ("as_any", 20.5)

    def structured(node_input: dict[str, int]) -> int:
        return sum(node_input.values())

    events = await TestRunner(Workflow(name="wf", edges=[(START, structured)])).run('{"a": 1}')
    assert outputs(events) == [("structured", 1)]

    def wants_int(node_input: int) -> int:
        return node_input

    with pytest.raises(WorkflowDataError, match="'node_input' of node 'wants_int'"):
        await TestRunner(Workflow(name="wf", edges=[(START, wants_int)])).run("not a number")
