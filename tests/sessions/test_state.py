"""State: a dict-like view that records writes as a delta; CallbackContext.state."""

from __future__ import annotations

import pytest

from pyadk.agents.base_agent import BaseAgent
from pyadk.agents.callback_context import CallbackContext
from pyadk.agents.invocation_context import InvocationContext
from pyadk.agents.llm_agent import LlmAgent
from pyadk.events import Event
from pyadk.sessions import InMemorySessionService, State
from pyadk.testing import ScriptedModel, TestRunner


def test_prefix_constants():
    assert (State.APP_PREFIX, State.USER_PREFIX, State.TEMP_PREFIX) == ("app:", "user:", "temp:")


def test_write_goes_to_value_and_delta():
    value = {"a": 1}
    delta: dict = {}
    state = State(value, delta)
    assert not state.has_delta()
    state["b"] = 2
    state["a"] = 10
    assert value == {"a": 10, "b": 2}
    assert delta == {"b": 2, "a": 10}
    assert state.has_delta()


def test_reads_see_delta_before_value():
    state = State({"k": "old", "only_value": 1}, {"k": "new", "only_delta": 2})
    assert state["k"] == "new"
    assert state["only_value"] == 1
    assert state["only_delta"] == 2
    assert state.to_dict() == {"k": "new", "only_value": 1, "only_delta": 2}
    assert sorted(state.keys()) == ["k", "only_delta", "only_value"]
    assert dict(state.items()) == state.to_dict()
    assert len(state) == 3
    assert sorted(state) == ["k", "only_delta", "only_value"]


def test_missing_key_raises_keyerror_and_get_returns_default():
    state = State({"present": None}, {})
    with pytest.raises(KeyError):
        state["missing"]
    assert state.get("missing") is None
    assert state.get("missing", "dflt") == "dflt"
    # A stored None is a value, not a miss.
    assert state.get("present", "dflt") is None


def test_contains_checks_value_and_delta():
    state = State({"v": 1}, {"d": 2})
    assert "v" in state
    assert "d" in state
    assert "x" not in state


def test_setdefault_writes_only_when_missing():
    value = {"have": 1}
    delta: dict = {}
    state = State(value, delta)
    assert state.setdefault("have", 99) == 1
    assert delta == {}  # nothing was written
    assert state.setdefault("new", []) == []
    assert delta == {"new": []}
    state.setdefault("new", ["ignored"]).append("x")
    assert state["new"] == ["x"]


def test_update_records_each_key():
    value: dict = {}
    delta: dict = {}
    state = State(value, delta)
    state.update({"a": 1, "b": 2}, c=3)
    assert delta == {"a": 1, "b": 2, "c": 3}
    assert value == {"a": 1, "b": 2, "c": 3}
    state.update(None, d=4)
    assert delta["d"] == 4


def test_to_dict_is_a_plain_copy():
    state = State({"a": 1}, {})
    snapshot = state.to_dict()
    snapshot["a"] = 2
    assert state["a"] == 1


# -- CallbackContext.state -----------------------------------------------------------------


async def _context(state: dict) -> CallbackContext:
    service = InMemorySessionService()
    session = await service.create_session(app_name="app", user_id="u", state=state)
    ctx = InvocationContext(
        session_service=service, session=session, agent=LlmAgent(name="a", model="x")
    )
    return CallbackContext(ctx)


async def test_callback_context_state_writes_go_to_event_actions():
    cc = await _context({"existing": 1})
    assert cc.state["existing"] == 1
    assert not cc.state.has_delta()
    cc.state["new"] = "v"
    cc.state["temp:t"] = 1
    assert cc.actions.state_delta == {"new": "v", "temp:t": 1}
    # The live session sees the write at once.
    assert cc.session.state["new"] == "v"


async def test_callback_context_with_given_actions_shares_them():
    from pyadk.events import EventActions

    service = InMemorySessionService()
    session = await service.create_session(app_name="app", user_id="u")
    ctx = InvocationContext(
        session_service=service, session=session, agent=LlmAgent(name="a", model="x")
    )
    actions = EventActions()
    cc = CallbackContext(ctx, event_actions=actions)
    cc.state["k"] = 1
    assert actions.state_delta == {"k": 1}
    assert cc.actions is actions


async def test_agent_callback_state_write_is_persisted_with_an_event():
    seen_in_model: list = []

    def before_agent(callback_context: CallbackContext):
        callback_context.state["visits"] = callback_context.state.get("visits", 0) + 1
        callback_context.state["user:name"] = "Ada"
        callback_context.state["temp:scratch"] = "tmp"

    def before_model(callback_context: CallbackContext, llm_request):
        # Written earlier in the same invocation, temp: included.
        seen_in_model.append(
            (callback_context.state["visits"], callback_context.state.get("temp:scratch"))
        )

    model = ScriptedModel(["one", "two"])
    agent = LlmAgent(
        name="agent",
        model=model,
        before_agent_callback=before_agent,
        before_model_callback=before_model,
    )
    runner = TestRunner(agent)
    events = await runner.run("hi")
    state_events = [e for e in events if e.actions.state_delta]
    assert len(state_events) == 1
    assert state_events[0].author == "agent"
    assert state_events[0].actions.state_delta["visits"] == 1

    stored = await runner.state()
    assert stored == {"visits": 1, "user:name": "Ada"}  # temp: is not persisted
    assert seen_in_model == [(1, "tmp")]

    await runner.run("again")
    assert (await runner.state())["visits"] == 2
    assert seen_in_model[-1] == (2, "tmp")


async def test_readonly_state_of_base_agent_context_cannot_be_written():
    class Peek(BaseAgent):
        async def _run_async_impl(self, ctx):
            from pyadk.agents.readonly_context import ReadonlyContext

            ro = ReadonlyContext(ctx)
            with pytest.raises(TypeError):
                ro.state["x"] = 1  # type: ignore[index]
            yield Event(author=self.name, invocation_id=ctx.invocation_id)

    runner = TestRunner(Peek(name="peek"))
    await runner.run("hi")
    assert "x" not in await runner.state()
