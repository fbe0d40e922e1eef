"""Agent, model and plugin callbacks in live runs (where google-adk calls them)."""

from __future__ import annotations

from typing import Any

from live_support import make_harness, texts, user

from pyadk import types
from pyadk.agents import CallbackContext, LiveRequestQueue, LlmAgent
from pyadk.events.event import Event
from pyadk.models.llm_request import LlmRequest
from pyadk.models.llm_response import LlmResponse
from pyadk.plugins.base_plugin import BasePlugin
from pyadk.testing import ScriptedLiveModel


async def test_agent_callbacks_run_around_the_live_run() -> None:
    calls: list[str] = []

    def before(callback_context: CallbackContext) -> None:
        calls.append("before")
        callback_context.state["greeted"] = True

    def after(callback_context: CallbackContext) -> types.Content:
        calls.append("after")
        return types.Content(parts=[types.Part(text="Session over.")])

    model = ScriptedLiveModel(["Hello."])
    agent = LlmAgent(
        name="assistant", model=model, before_agent_callback=before, after_agent_callback=after
    )
    live = await make_harness(agent)
    queue = LiveRequestQueue()
    queue.send_content(user("hi"))

    events = await live.run(queue, close_after_turns=1)

    assert calls == ["before", "after"]
    assert texts(events) == ["Hello.", "Session over."]
    assert (await live.state())["greeted"] is True
    assert events[0].actions.state_delta == {"greeted": True}


async def test_content_from_before_agent_callback_replaces_the_live_run() -> None:
    model = ScriptedLiveModel()
    agent = LlmAgent(
        name="assistant",
        model=model,
        before_agent_callback=lambda callback_context: types.Content(
            parts=[types.Part(text="We are closed.")]
        ),
    )
    live = await make_harness(agent)
    queue = LiveRequestQueue()

    events = await live.run(queue)

    assert texts(events) == ["We are closed."]
    assert model.connections == []


async def test_before_model_callback_screens_user_content_before_it_is_sent() -> None:
    screened: list[list[str]] = []

    def screen(callback_context: CallbackContext, llm_request: LlmRequest) -> Any:
        screened.append([p.text or "" for c in llm_request.contents for p in c.parts or []])
        if "password" in screened[-1][0]:
            return LlmResponse(
                content=types.Content(role="model", parts=[types.Part(text="Blocked.")])
            )
        return None

    model = ScriptedLiveModel(["Fine."])
    agent = LlmAgent(name="assistant", model=model, before_model_callback=screen)
    live = await make_harness(agent)
    queue = LiveRequestQueue()
    queue.send_content(user("my password is 1234"))
    queue.send_content(user("hello"))

    events = await live.run(queue, close_after_turns=2)

    assert screened == [["my password is 1234"], ["hello"]]
    assert texts(events) == ["Blocked.", "Fine."]
    assert events[0].turn_complete and events[0].author == "assistant"
    # The blocked content never reached the model; the user's turn is still stored.
    assert [c.parts[0].text for c in model.connections[0].sent] == ["hello"]
    assert [e.text for e in await live.stored() if e.author == "user"] == [
        "my password is 1234",
        "hello",
    ]


class _Recorder(BasePlugin):
    def __init__(self) -> None:
        super().__init__(name="recorder")
        self.calls: list[str] = []

    async def before_run_callback(self, *, invocation_context: Any) -> None:
        self.calls.append("before_run")

    async def on_event_callback(self, *, invocation_context: Any, event: Event) -> Event | None:
        self.calls.append("event")
        if event.content is not None and event.text == "raw":
            return event.model_copy(
                update={"content": types.Content(role="model", parts=[types.Part(text="edited")])}
            )
        return None

    async def after_run_callback(self, *, invocation_context: Any) -> None:
        self.calls.append("after_run")

    async def before_agent_callback(self, *, agent: Any, callback_context: Any) -> None:
        self.calls.append(f"before_agent:{agent.name}")


async def test_plugins_see_the_run_and_can_replace_events_before_they_are_stored() -> None:
    plugin = _Recorder()
    model = ScriptedLiveModel(["raw"])
    live = await make_harness(LlmAgent(name="assistant", model=model), plugins=[plugin])
    queue = LiveRequestQueue()
    queue.send_content(user("hi"))

    events = await live.run(queue, close_after_turns=1)

    assert plugin.calls == ["before_run", "before_agent:assistant", "event", "event", "after_run"]
    assert texts(events) == ["edited"]
    assert [e.text for e in await live.stored() if e.author == "assistant" and e.content] == [
        "edited"
    ]


async def test_a_plugin_before_run_content_ends_the_live_run_at_once() -> None:
    class Gate(BasePlugin):
        async def before_run_callback(self, *, invocation_context: Any) -> types.Content:
            return types.Content(role="model", parts=[types.Part(text="Maintenance.")])

    model = ScriptedLiveModel()
    live = await make_harness(LlmAgent(name="assistant", model=model), plugins=[Gate("gate")])
    queue = LiveRequestQueue()

    events = await live.run(queue)

    assert texts(events) == ["Maintenance."]
    assert model.connections == []
    assert [e.text for e in await live.stored()] == ["Maintenance."]
