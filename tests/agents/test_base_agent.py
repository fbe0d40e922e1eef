"""BaseAgent: names, the agent tree, agent callbacks and custom agents."""

from __future__ import annotations

from collections.abc import AsyncGenerator

import pytest
from agent_support import llm
from pydantic import ValidationError

from pyadk import types
from pyadk.agents import BaseAgent, CallbackContext, InvocationContext, LlmAgent, SequentialAgent
from pyadk.events.event import Event
from pyadk.events.event_actions import EventActions
from pyadk.testing import ScriptedModel, TestRunner, simplify_events

# -- names and tree -------------------------------------------------------------------------


@pytest.mark.parametrize("bad", ["my agent", "1st", "a-b", ""])
def test_name_must_be_identifier(bad):
    with pytest.raises(ValidationError, match="valid identifier") as info:
        BaseAgent(name=bad)
    assert isinstance(info.value, ValueError)


def test_name_user_is_reserved():
    with pytest.raises(ValueError, match="'user'"):
        BaseAgent(name="user")


def test_agent_cannot_have_two_parents():
    child = BaseAgent(name="child")
    BaseAgent(name="first", sub_agents=[child])
    with pytest.raises(ValueError, match=r"'child' already has a parent agent.*'first'.*'second'"):
        BaseAgent(name="second", sub_agents=[child])
    assert child.parent_agent is not None and child.parent_agent.name == "first"


def test_duplicate_sibling_names_rejected():
    with pytest.raises(ValueError, match="two sub-agents named 'same'"):
        BaseAgent(name="root", sub_agents=[BaseAgent(name="same"), BaseAgent(name="same")])


def test_tree_navigation():
    leaf = BaseAgent(name="leaf")
    mid = BaseAgent(name="mid", sub_agents=[leaf])
    other = BaseAgent(name="other")
    root = BaseAgent(name="root", sub_agents=[mid, other])

    assert leaf.parent_agent is mid and mid.parent_agent is root
    assert leaf.root_agent is root and root.root_agent is root
    assert root.find_agent("root") is root
    assert root.find_agent("leaf") is leaf
    assert root.find_sub_agent("root") is None
    assert root.find_sub_agent("other") is other
    assert mid.find_agent("other") is None
    assert root.find_agent("missing") is None


# -- agent callbacks ------------------------------------------------------------------------


async def test_before_callback_content_skips_agent():
    model = ScriptedModel([])
    agent = LlmAgent(
        name="guarded",
        model=model,
        before_agent_callback=lambda callback_context: types.ModelContent("blocked"),
    )
    runner = TestRunner(agent)
    events = await runner.run("hi")

    assert model.call_count == 0
    # One event, as in google-adk: the callback's answer, which also carries the outcome.
    assert len(events) == 1
    (event,) = events
    assert event.author == "guarded"
    assert event.content.role == "model"
    assert event.content.text == "blocked"
    assert event.is_final_response()
    assert not event.is_outcome_event()  # it has content
    assert event.actions.agent_outcome.status == "skipped"
    assert event.actions.end_of_agent is True
    state = await runner.state()
    assert state["outcome:guarded"]["status"] == "skipped"


async def test_before_callback_content_without_role_gets_model_role():
    agent = llm(
        "a",
        before_agent_callback=lambda callback_context: types.Content(parts=[types.Part(text="x")]),
    )
    events = await TestRunner(agent).run("hi")
    assert events[0].content.role == "model"


async def test_skipped_agent_does_not_stop_sequential_agent():
    first = llm("first", before_agent_callback=lambda callback_context: types.ModelContent("skip"))
    second = llm("second", "second ran")
    pipeline = SequentialAgent(name="pipeline", sub_agents=[first, second])
    events = await TestRunner(pipeline).run("go")
    assert simplify_events(events) == [("first", "skip"), ("second", "second ran")]


async def test_callbacks_are_called_by_keyword_sync_and_async():
    calls: list[str] = []

    def before(*, callback_context):
        assert isinstance(callback_context, CallbackContext)
        assert callback_context.agent_name == "a"
        calls.append("before")

    async def after(*, callback_context):
        calls.append("after")

    agent = llm("a", "answer", before_agent_callback=before, after_agent_callback=after)
    events = await TestRunner(agent).run("hi")
    assert calls == ["before", "after"]
    assert simplify_events(events) == [("a", "answer")]


async def test_callback_lists_run_in_order_until_first_content():
    calls: list[str] = []

    def none_cb(callback_context):
        calls.append("none")

    async def content_cb(callback_context):
        calls.append("content")
        return types.ModelContent("from second")

    def never(callback_context):
        calls.append("never")
        return types.ModelContent("from third")

    model = ScriptedModel([])
    agent = LlmAgent(name="a", model=model, before_agent_callback=[none_cb, content_cb, never])
    events = await TestRunner(agent).run("hi")
    assert calls == ["none", "content"]
    assert simplify_events(events) == [("a", "from second")]
    assert model.call_count == 0


async def test_before_callback_state_change_is_persisted_as_actions_only_event():
    def before(callback_context):
        callback_context.state["seen"] = True

    agent = llm("a", "answer", before_agent_callback=before)
    runner = TestRunner(agent)
    events = await runner.run("hi")

    assert len(events) == 2
    state_event, answer = events
    assert state_event.author == "a"
    assert state_event.content is None
    assert state_event.actions.state_delta == {"seen": True}
    assert answer.content.text == "answer"
    session = await runner.session()
    assert session.state["seen"] is True
    assert [e.id for e in session.events[1:]] == [state_event.id, answer.id]


async def test_after_callback_content_becomes_final_event():
    def after(callback_context):
        callback_context.state["done"] = 1
        return types.ModelContent("appended")

    agent = llm("a", "answer", after_agent_callback=after)
    runner = TestRunner(agent)
    events = await runner.run("hi")

    assert simplify_events(events) == [("a", "answer"), ("a", "appended")]
    last = events[-1]
    assert last.is_final_response()
    assert last.content.role == "model"
    assert last.actions.state_delta == {"done": 1}
    assert (await runner.state())["done"] == 1


async def test_after_callback_returning_none_adds_no_event():
    agent = llm("a", "answer", after_agent_callback=lambda callback_context: None)
    events = await TestRunner(agent).run("hi")
    assert len(events) == 1


async def test_after_callback_not_run_when_before_callback_skips():
    calls: list[str] = []
    agent = llm(
        "a",
        before_agent_callback=lambda callback_context: types.ModelContent("skip"),
        after_agent_callback=lambda callback_context: calls.append("after"),
    )
    await TestRunner(agent).run("hi")
    assert calls == []


async def test_genai_shaped_dict_content_is_accepted():
    agent = llm(
        "a",
        before_agent_callback=lambda callback_context: {
            "role": "model",
            "parts": [{"text": "from a dict"}],
        },
    )
    events = await TestRunner(agent).run("hi")
    assert isinstance(events[0].content, types.Content)
    assert events[0].content.text == "from a dict"


async def test_callback_exception_propagates():
    def boom(callback_context):
        raise RuntimeError("callback failed")

    agent = llm("a", "answer", before_agent_callback=boom)
    with pytest.raises(RuntimeError, match="callback failed"):
        await TestRunner(agent).run("hi")


# -- custom agents --------------------------------------------------------------------------


class CountingAgent(BaseAgent):
    """Says how many events the session had and bumps a counter in state."""

    async def _run_async_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        count = ctx.session.state.get("count", 0) + 1
        yield Event(
            invocation_id=ctx.invocation_id,
            author=self.name,
            branch=ctx.branch,
            content=types.ModelContent(f"run {count}"),
            actions=EventActions(state_delta={"count": count}),
        )


async def test_custom_agent_runs_and_persists_state():
    runner = TestRunner(CountingAgent(name="counter"))
    first = await runner.run("one")
    second = await runner.run("two")
    assert simplify_events(first + second) == [("counter", "run 1"), ("counter", "run 2")]
    assert (await runner.state())["count"] == 2


async def test_custom_agent_gets_callbacks_and_runs_in_sequence():
    custom = CountingAgent(
        name="counter",
        after_agent_callback=lambda callback_context: types.ModelContent("after custom"),
    )
    pipeline = SequentialAgent(name="pipeline", sub_agents=[custom, llm("tail", "tail ran")])
    events = await TestRunner(pipeline).run("go")
    assert simplify_events(events) == [
        ("counter", "run 1"),
        ("counter", "after custom"),
        ("tail", "tail ran"),
    ]


async def test_base_agent_without_impl_raises():
    with pytest.raises(NotImplementedError, match="BaseAgent"):
        await TestRunner(BaseAgent(name="bare")).run("hi")


class ContextCopyingAgent(BaseAgent):
    """Checks what ``InvocationContext.model_copy`` gives a custom agent."""

    async def _run_async_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        copy = ctx.model_copy(update={"branch": "side"})
        assert copy is not ctx and copy.branch == "side" and ctx.branch != "side"
        assert copy.session is ctx.session and copy.agent is self
        copy.increment_llm_call_count()  # counters are shared by every copy
        assert ctx.llm_call_count == 1
        with pytest.raises(TypeError, match="no field 'brnach'"):
            ctx.model_copy(update={"brnach": "typo"})
        yield Event(
            invocation_id=ctx.invocation_id,
            author=self.name,
            content=types.ModelContent("copied"),
        )


async def test_invocation_context_copy_shares_session_and_counters_and_rejects_typos():
    events = await TestRunner(ContextCopyingAgent(name="copier")).run("go")
    assert simplify_events(events) == [("copier", "copied")]
