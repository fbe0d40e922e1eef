"""Custom node classes, events yielded by nodes, and what pyadk does not support."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import Any

import pytest
from wf_support import outputs

from pyadk import types
from pyadk.events import Event
from pyadk.testing import TestRunner
from pyadk.workflow import (
    START,
    BaseNode,
    Context,
    Node,
    Workflow,
)


class Multiply(Node):
    """A reusable node with its own settings."""

    factor: int

    async def run_node_impl(self, *, ctx: Context, node_input: Any) -> AsyncGenerator[Any, None]:
        ctx.state[f"{self.name}_ran"] = True
        yield node_input * self.factor


class Announce(BaseNode):
    """Yields a content event of its own, then an output."""

    async def _run_impl(self, *, ctx: Context, node_input: Any) -> AsyncGenerator[Any, None]:
        ctx.state["announced"] = True
        yield Event(
            invocation_id=ctx.invocation_id,
            author=self.name,
            content=types.ModelContent(f"value is {node_input}"),
        )
        yield node_input


def start_value() -> int:
    return 3


async def test_node_subclasses_with_fields_and_their_own_events():
    double = Multiply(name="double", factor=2)
    triple = Multiply(name="triple", factor=3)
    announce = Announce(name="announce")
    wf = Workflow(name="wf", edges=[(START, start_value, double, triple, announce)])
    runner = TestRunner(wf)
    events = await runner.run("go")
    assert outputs(events) == [("start_value", 3), ("double", 6), ("triple", 18), ("announce", 18)]
    spoken = [e for e in events if e.content]
    assert [(e.author, e.text) for e in spoken] == [("announce", "value is 18")]
    assert spoken[0].actions.state_delta == {"announced": True}  # pending state rides along
    state = await runner.state()
    assert state["double_ran"] and state["triple_ran"] and state["announced"]


async def test_a_base_node_without_run_impl_fails_clearly():
    wf = Workflow(name="wf", edges=[(START, BaseNode(name="empty"))])
    with pytest.raises(NotImplementedError, match="_run_impl for BaseNode is not implemented"):
        await TestRunner(wf).run("go")


async def test_a_nodes_own_event_without_an_invocation_id_gets_the_runs():
    def speak(node_input: Any) -> Any:
        yield Event(author="speaker", content=types.ModelContent("hello"))
        yield "spoken"

    runner = TestRunner(Workflow(name="wf", edges=[(START, speak)]))
    events = await runner.run("go")
    [spoken] = [e for e in events if e.content and e.author == "speaker"]
    assert spoken.invocation_id and spoken.invocation_id == events[-1].invocation_id
    stored = [e for e in (await runner.session()).events if e.author == "speaker"]
    assert [e.invocation_id for e in stored] == [spoken.invocation_id]
