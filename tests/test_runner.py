"""Runner: sessions, the user event, persistence before yield, sync run, artifacts, close."""

from __future__ import annotations

import asyncio
import threading
from typing import ClassVar

import pytest

from pyadk import types
from pyadk.agents.base_agent import BaseAgent
from pyadk.agents.llm_agent import LlmAgent
from pyadk.agents.run_config import RunConfig, StreamingMode
from pyadk.artifacts.in_memory_artifact_service import InMemoryArtifactService
from pyadk.events import Event, EventActions
from pyadk.memory.in_memory_memory_service import InMemoryMemoryService
from pyadk.plugins.base_plugin import BasePlugin
from pyadk.runners import InMemoryRunner, Runner
from pyadk.sessions import InMemorySessionService, SessionNotFoundError
from pyadk.sessions import in_memory_session_service as in_memory_module
from pyadk.testing import ScriptedModel, Stream, function_call, simplify_events

APP = "app"
USER = "u"


def _runner(agent: BaseAgent, **kwargs) -> Runner:
    return Runner(app_name=APP, agent=agent, session_service=InMemorySessionService(), **kwargs)


async def _stored(runner: Runner, session_id: str = "s"):
    session = await runner.session_service.get_session(
        app_name=APP, user_id=USER, session_id=session_id
    )
    assert session is not None
    return session


async def _collect(runner: Runner, message="hi", session_id: str = "s", **kwargs) -> list[Event]:
    if isinstance(message, str):
        message = types.UserContent(message)
    return [
        e
        async for e in runner.run_async(
            user_id=USER, session_id=session_id, new_message=message, **kwargs
        )
    ]


class Echo(BaseAgent):
    """Answers with the text of the user message (no model)."""

    async def _run_async_impl(self, ctx):
        text = ctx.user_content.text if ctx.user_content else None
        yield Event(
            invocation_id=ctx.invocation_id,
            author=self.name,
            content=types.ModelContent(f"echo: {text}"),
        )


class Boom(BaseAgent):
    raised: ClassVar[list[BaseException]] = []
    threads: ClassVar[list[threading.Thread]] = []

    async def _run_async_impl(self, ctx):
        yield Event(
            invocation_id=ctx.invocation_id, author=self.name, content=types.ModelContent("1")
        )
        error = RuntimeError("agent exploded")
        Boom.raised.append(error)
        Boom.threads.append(threading.current_thread())
        raise error


def test_agent_must_be_a_base_agent():
    with pytest.raises(TypeError, match="BaseAgent"):
        Runner(app_name=APP, agent="nope", session_service=InMemorySessionService())  # type: ignore[arg-type]


async def test_missing_session_raises_with_clear_message():
    runner = _runner(Echo(name="echo"))
    with pytest.raises(SessionNotFoundError) as info:
        await _collect(runner, session_id="missing")
    message = str(info.value)
    assert "'missing'" in message
    assert APP in message and USER in message
    assert "auto_create_session=True" in message
    # Nothing was created.
    assert (
        await runner.session_service.get_session(app_name=APP, user_id=USER, session_id="missing")
        is None
    )


async def test_auto_create_session_creates_and_persists():
    runner = _runner(Echo(name="echo"), auto_create_session=True)
    events = await _collect(runner, "hello", session_id="fresh")
    assert [e.content.text for e in events] == ["echo: hello"]
    stored = await _stored(runner, "fresh")
    assert [(e.author, e.content.text) for e in stored.events] == [
        ("user", "hello"),
        ("echo", "echo: hello"),
    ]
    # A second turn reuses the same session.
    await _collect(runner, "again", session_id="fresh")
    assert len((await _stored(runner, "fresh")).events) == 4


async def test_user_event_is_persisted_but_not_yielded():
    runner = _runner(Echo(name="echo"))
    await runner.session_service.create_session(app_name=APP, user_id=USER, session_id="s")
    events = await _collect(runner, types.Content(parts=[types.Part(text="hi")]))
    assert all(e.author != "user" for e in events)
    stored = await _stored(runner)
    user_event = stored.events[0]
    assert user_event.author == "user"
    assert user_event.content.role == "user"  # role filled in when missing
    assert user_event.content.text == "hi"
    assert user_event.invocation_id == events[0].invocation_id
    assert user_event.invocation_id.startswith("e-")


async def test_every_non_partial_event_is_stored_before_it_is_yielded():
    def add(a: int, b: int) -> int:
        """Adds."""
        return a + b

    model = ScriptedModel([function_call("add", {"a": 1, "b": 2}), Stream(["The sum ", "is 3"])])
    runner = _runner(LlmAgent(name="agent", model=model, tools=[add]))
    await runner.session_service.create_session(app_name=APP, user_id=USER, session_id="s")

    seen_partial = seen_final = 0
    async for event in runner.run_async(
        user_id=USER,
        session_id="s",
        new_message=types.UserContent("add"),
        run_config=RunConfig(streaming_mode=StreamingMode.SSE),
    ):
        stored_ids = [e.id for e in (await _stored(runner)).events]
        if event.partial:
            seen_partial += 1
            assert event.id not in stored_ids
        else:
            seen_final += 1
            assert stored_ids[-1] == event.id
    assert seen_partial == 2
    assert seen_final == 3  # call, response, final text
    stored = await _stored(runner)
    assert stored.events[-1].content.text == "The sum is 3"


async def test_state_delta_argument_is_applied_with_the_user_event():
    model = ScriptedModel(["ok"])
    runner = _runner(LlmAgent(name="agent", model=model, instruction="Mood: {mood}."))
    await runner.session_service.create_session(
        app_name=APP, user_id=USER, session_id="s", state={"mood": "sad"}
    )
    await _collect(runner, "hi", state_delta={"mood": "happy", "user:tier": "gold"})
    stored = await _stored(runner)
    assert stored.state == {"mood": "happy", "user:tier": "gold"}
    user_event = stored.events[0]
    assert user_event.author == "user"
    assert user_event.actions.state_delta == {"mood": "happy", "user:tier": "gold"}
    # The agent already saw the new value in the same turn.
    assert "Mood: happy." in model.requests[0].system_instruction_text()


async def test_state_delta_without_message_is_stored_as_user_event():
    runner = _runner(Echo(name="echo"))
    await runner.session_service.create_session(app_name=APP, user_id=USER, session_id="s")
    events = [e async for e in runner.run_async(user_id=USER, session_id="s", state_delta={"k": 1})]
    assert [e.content.text for e in events] == ["echo: None"]
    stored = await _stored(runner)
    assert stored.state == {"k": 1}
    assert stored.events[0].author == "user"
    assert stored.events[0].content is None


async def test_new_message_as_plain_dict_is_accepted():
    model = ScriptedModel(["ok"])
    runner = _runner(LlmAgent(name="agent", model=model))
    await runner.session_service.create_session(app_name=APP, user_id=USER, session_id="s")
    events = await _collect(runner, {"role": "user", "parts": [{"text": "from a dict"}]})
    assert events[-1].content.text == "ok"
    assert model.requests[0].contents[-1].parts[0].text == "from a dict"
    assert isinstance((await _stored(runner)).events[0].content, types.Content)


@pytest.mark.parametrize("message", [types.Content(role="user"), {"role": "user", "parts": []}])
async def test_message_without_parts_is_rejected(message):
    runner = _runner(Echo(name="echo"))
    await runner.session_service.create_session(app_name=APP, user_id=USER, session_id="s")
    with pytest.raises(ValueError, match="no parts"):
        await _collect(runner, message)
    assert (await _stored(runner)).events == []


def _tool_agent() -> LlmAgent:
    def noop() -> str:
        """Does nothing."""
        return "ok"

    model = ScriptedModel([function_call("noop", {}), "done"])
    return LlmAgent(name="agent", model=model, tools=[noop])


def _new_session(runner: Runner) -> None:
    asyncio.run(
        runner.session_service.create_session(
            app_name=runner.app_name, user_id=USER, session_id="s"
        )
    )


def test_sync_run_yields_the_same_events_as_run_async():
    async_runner = InMemoryRunner(_tool_agent())
    _new_session(async_runner)

    async def run_async() -> list[Event]:
        return [
            e
            async for e in async_runner.run_async(
                user_id=USER, session_id="s", new_message=types.UserContent("go")
            )
        ]

    expected = simplify_events(asyncio.run(run_async()))
    assert expected == [
        ("agent", "call:noop({})"),
        ("agent", "response:noop({'result': 'ok'})"),
        ("agent", "done"),
    ]

    runner = InMemoryRunner(_tool_agent())
    _new_session(runner)
    events = list(runner.run(user_id=USER, session_id="s", new_message=types.UserContent("go")))
    assert simplify_events(events) == expected
    stored = asyncio.run(
        runner.session_service.get_session(app_name=runner.app_name, user_id=USER, session_id="s")
    )
    assert [e.id for e in stored.events[1:]] == [e.id for e in events]


def test_sync_run_reraises_agent_errors_in_caller_thread():
    agent = Boom(name="boom")
    runner = InMemoryRunner(agent)
    _new_session(runner)
    received: list[str] = []
    with pytest.raises(RuntimeError, match="agent exploded") as info:
        for event in runner.run(user_id=USER, session_id="s", new_message=types.UserContent("go")):
            received.append(event.text)
    assert received == ["1", None]  # the reply, then the failure outcome
    # The very exception the agent raised, in another thread, reaches the caller.
    assert info.value is Boom.raised[-1]
    assert Boom.threads[-1] is not threading.current_thread()


def test_sync_run_reraises_missing_session():
    runner = InMemoryRunner(Echo(name="echo"))
    with pytest.raises(SessionNotFoundError):
        list(runner.run(user_id=USER, session_id="nope", new_message=types.UserContent("x")))


def test_in_memory_runner_defaults():
    agent = Echo(name="echo")
    runner = InMemoryRunner(agent)
    assert runner.app_name == "InMemoryRunner"
    assert runner.agent is agent
    assert isinstance(runner.session_service, InMemorySessionService)
    assert isinstance(runner.artifact_service, InMemoryArtifactService)
    assert isinstance(runner.memory_service, InMemoryMemoryService)
    assert InMemoryRunner(agent, app_name="mine").app_name == "mine"


async def test_save_input_blobs_as_artifacts():
    model = ScriptedModel(["got it"])
    runner = InMemoryRunner(LlmAgent(name="agent", model=model), app_name=APP)
    await runner.session_service.create_session(app_name=APP, user_id=USER, session_id="s")
    message = types.UserContent(
        [types.Part(text="see file"), types.Part.from_bytes(data=b"\x89PNG", mime_type="image/png")]
    )
    events = await _collect(
        runner, message, run_config=RunConfig(save_input_blobs_as_artifacts=True)
    )
    invocation_id = events[0].invocation_id
    name = f"artifact_{invocation_id}_1"
    keys = await runner.artifact_service.list_artifact_keys(
        app_name=APP, user_id=USER, session_id="s"
    )
    assert keys == [name]
    saved = await runner.artifact_service.load_artifact(
        app_name=APP, user_id=USER, session_id="s", filename=name
    )
    assert saved.inline_data.data == b"\x89PNG"
    assert saved.inline_data.mime_type == "image/png"

    stored_parts = (await _stored(runner)).events[0].content.parts
    assert stored_parts[0].text == "see file"
    assert stored_parts[1].inline_data is None
    assert name in stored_parts[1].text
    # The model sees the placeholder, not the bytes.
    sent = model.requests[0].contents[-1].parts
    assert all(p.inline_data is None for p in sent)


async def test_save_input_blobs_without_artifact_service_fails_clearly():
    runner = _runner(Echo(name="echo"))
    await runner.session_service.create_session(app_name=APP, user_id=USER, session_id="s")
    message = types.UserContent([types.Part.from_bytes(data=b"x", mime_type="text/plain")])
    with pytest.raises(ValueError, match="artifact_service"):
        await _collect(runner, message, run_config=RunConfig(save_input_blobs_as_artifacts=True))


async def test_close_closes_plugins_and_async_context_manager():
    closed: list[str] = []

    class Closing(BasePlugin):
        async def close(self) -> None:
            closed.append(self.name)

    runner = _runner(Echo(name="echo"), plugins=[Closing("p1"), Closing("p2")])
    await runner.close()
    assert closed == ["p1", "p2"]

    closed.clear()
    async with _runner(Echo(name="echo"), plugins=[Closing("p3")]) as runner2:
        assert isinstance(runner2, Runner)
    assert closed == ["p3"]


async def test_model_callback_editing_request_does_not_change_stored_history():
    def redact(callback_context, llm_request):
        for content in llm_request.contents:
            for part in content.parts:
                if part.text:
                    part.text = "[redacted]"

    model = ScriptedModel(["first", "second"])
    runner = _runner(LlmAgent(name="agent", model=model, before_model_callback=redact))
    await runner.session_service.create_session(app_name=APP, user_id=USER, session_id="s")
    await _collect(runner, "secret one")
    await _collect(runner, "secret two")
    stored = await _stored(runner)
    assert [e.content.text for e in stored.events] == [
        "secret one",
        "first",
        "secret two",
        "second",
    ]


async def test_turn_on_long_session_does_not_deep_copy_history(monkeypatch):
    runner = _runner(Echo(name="echo"))
    session = await runner.session_service.create_session(
        app_name=APP, user_id=USER, session_id="s"
    )
    for i in range(5000):
        await runner.session_service.append_event(
            session, Event(author="echo", content=types.ModelContent(f"e{i}"))
        )
    deep_copies: list[str] = []
    original = in_memory_module.encode

    def counting(event):
        deep_copies.append(event.id)
        return original(event)

    monkeypatch.setattr(in_memory_module, "encode", counting)
    events = await _collect(runner, "x", state_delta={"k": 1})
    assert len(deep_copies) == 2  # the user event and the agent's event, nothing else
    assert deep_copies[1] == events[0].id
    monkeypatch.undo()
    stored = await _stored(runner)
    assert len(stored.events) == 5002
    assert stored.events[-1].actions == EventActions()
