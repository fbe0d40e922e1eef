"""InMemorySessionService keeps events encoded and the decoded events of recent sessions.

Every stored event is encoded; the decoded events of the sessions that ran a turn
recently are cached (``cached_events`` at most, the session run last always whole).
These tests check what users rely on: a turn sees exactly the stored history whether
its session was cached, evicted or never run; a conversation's turn decodes nothing of
its history; the bound holds; and nothing a caller does to its event objects reaches
storage or the next turn.
"""

from __future__ import annotations

import gc
import tracemalloc
from collections.abc import Iterator

import pytest
from recorder import Recorder

from pyadk import types
from pyadk.agents.llm_agent import LlmAgent
from pyadk.events import Event, EventActions
from pyadk.runners import Runner
from pyadk.sessions import GetSessionConfig, InMemorySessionService
from pyadk.sessions import in_memory_session_service as in_memory_module
from pyadk.testing import ScriptedModel, function_call

APP = "app"


def _runner(service: InMemorySessionService, model: object) -> Runner:
    agent = LlmAgent(name="bot", model=model)  # type: ignore[arg-type]
    return Runner(app_name=APP, agent=agent, session_service=service)


async def _turn(runner: Runner, session_id: str, text: str) -> list[Event]:
    message = types.Content(role="user", parts=[types.Part(text=text)])
    return [
        e async for e in runner.run_async(user_id="u", session_id=session_id, new_message=message)
    ]


@pytest.fixture
def decodes(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The ids of the events the service decodes, in order."""
    decoded: list[str] = []
    original = in_memory_module._decode

    def counting(encoded: in_memory_module.Encoded) -> Event:
        event = original(encoded)
        decoded.append(event.id)
        return event

    monkeypatch.setattr(in_memory_module, "_decode", counting)
    yield decoded


def _rich_events() -> list[Event]:
    """A stored history with tool traffic, bytes, unicode and state changes."""
    return [
        Event(author="user", content=types.UserContent("Describe this ✓ 图片")),
        Event(
            author="bot",
            content=types.Content(
                role="model", parts=[function_call("inspect", {"size": [640, 480]}, id="c1")]
            ),
        ),
        Event(
            author="bot",
            content=types.Content(
                role="user",
                parts=[
                    types.Part(
                        function_response=types.FunctionResponse(
                            id="c1", name="inspect", response={"labels": ["cat", "çà"]}
                        )
                    )
                ],
            ),
            actions=EventActions(state_delta={"seen": {"cat": 1}, "user:lang": "fr"}),
        ),
        Event(
            author="bot",
            content=types.Content(
                role="model",
                parts=[
                    types.Part(text="Un chat 🐈"),
                    types.Part(inline_data=types.Blob(mime_type="image/png", data=b"\x89PNG\x00")),
                ],
            ),
            actions=EventActions(artifact_delta={"cat.png": 1}),
        ),
    ]


async def _session_with(service: InMemorySessionService, sid: str, events: list[Event]) -> None:
    session = await service.create_session(app_name=APP, user_id="u", session_id=sid)
    for event in events:
        await service.append_event(session, event)


async def test_a_session_never_run_loads_exactly_as_stored():
    service = InMemorySessionService()
    events = _rich_events()
    await _session_with(service, "s", events)
    got = await service.get_session(app_name=APP, user_id="u", session_id="s")
    assert got is not None
    assert got.events == events
    assert [e.model_fields_set for e in got.events] == [e.model_fields_set for e in events]
    assert type(got.events[0].content) is types.UserContent
    assert got.events[3].content.parts[1].inline_data.data == b"\x89PNG\x00"
    assert got.state == {"seen": {"cat": 1}, "user:lang": "fr"}
    mine = await service._load_session_for_run(app_name=APP, user_id="u", session_id="s")
    assert mine is not None and mine.events == events


async def test_a_turn_after_eviction_sees_the_history_exactly(decodes):
    service = InMemorySessionService(cached_events=8)
    recorder = Recorder()
    runner = _runner(service, recorder.model())
    await _session_with(service, "old", _rich_events())
    await _turn(runner, "old", "first")
    before = recorder.contents()
    for i in range(3):  # other conversations push "old" out of the cache
        await _session_with(service, f"other{i}", _rich_events())
        await _turn(runner, f"other{i}", "hello")
    decodes.clear()
    await _turn(runner, "old", "second")
    assert len(decodes) == 6  # evicted: its 4 events, the question and the reply
    assert recorder.contents()[: len(before)] == before
    assert [p.text for c in recorder.contents()[len(before) :] for p in c.parts or []] == [
        "reply 1",
        "second",
    ]
    stored = await service.get_session(app_name=APP, user_id="u", session_id="old")
    assert stored is not None
    assert stored.events[:4] == _rich_events_like(stored.events[:4])
    assert stored.state["seen"] == {"cat": 1}


def _rich_events_like(events: list[Event]) -> list[Event]:
    """``_rich_events()`` with the ids and timestamps of ``events``."""
    fresh = _rich_events()
    for mine, theirs in zip(fresh, events, strict=True):
        mine.id, mine.timestamp = theirs.id, theirs.timestamp
    return fresh


async def test_a_conversation_turn_decodes_none_of_its_history(decodes):
    service = InMemorySessionService(cached_events=50)
    recorder = Recorder()
    runner = _runner(service, recorder.model())
    history = [Event(author="user", content=types.UserContent(f"m{i}")) for i in range(300)]
    await _session_with(service, "long", history)
    await _turn(runner, "long", "turn 0")
    assert len(decodes) == 300  # its first turn decodes the history, once
    for i in range(1, 6):
        decodes.clear()
        await _turn(runner, "long", f"turn {i}")
        assert decodes == []  # larger than the cache, but the session run last is kept
        assert len(recorder.contents()) == 300 + 2 * i + 1
    session = await service.get_session(app_name=APP, user_id="u", session_id="long")
    assert session is not None and len(session.events) == 312
    decodes.clear()
    await service.append_event(session, Event(author="user", content=types.UserContent("x")))
    await _turn(runner, "long", "after an append from outside the turn")
    assert decodes == []  # the append gave the cache its copy


async def test_the_cache_holds_at_most_cached_events(decodes):
    service = InMemorySessionService(cached_events=12)
    runner = _runner(service, ScriptedModel(["ok"] * 40))
    for i in range(6):
        await _session_with(service, f"s{i}", _rich_events())
        await _turn(runner, f"s{i}", "q")
        assert service._cache._size <= 12  # 4 + 2 events and 1 per session: one fits
    decodes.clear()
    await _turn(runner, "s5", "again")  # ran last: cached
    assert decodes == []
    await _turn(runner, "s0", "again")  # evicted long ago
    assert len(decodes) == 6


async def test_single_turn_sessions_are_not_cached():
    service = InMemorySessionService()
    runner = _runner(service, ScriptedModel(["ok"] * 20))
    for i in range(20):
        session = await service.create_session(app_name=APP, user_id="u")
        await _turn(runner, session.id, f"q{i}")
    assert service._cache._size == 0


async def test_without_a_cache_every_turn_decodes_its_history(decodes):
    service = InMemorySessionService(cached_events=0)
    recorder = Recorder()
    runner = _runner(service, recorder.model())
    await service.create_session(app_name=APP, user_id="u", session_id="s")
    for i in range(3):
        decodes.clear()
        await _turn(runner, "s", f"q{i}")
        assert len(decodes) == 2 * i
    texts = [p.text for c in recorder.contents() for p in c.parts or []]
    assert texts == ["q0", "reply 1", "q1", "reply 2", "q2"]


def test_a_negative_cache_size_is_refused():
    with pytest.raises(ValueError, match="0 or more"):
        InMemorySessionService(cached_events=-1)


async def test_changing_yielded_events_changes_neither_storage_nor_the_next_turn():
    service = InMemorySessionService()
    recorder = Recorder()
    runner = _runner(service, recorder.model())
    await service.create_session(app_name=APP, user_id="u", session_id="s")
    await _turn(runner, "s", "one")
    for event in await _turn(runner, "s", "two"):  # the session is cached now
        for part in event.content.parts if event.content else []:
            part.text = "tampered"
        event.actions.state_delta["tampered"] = True
    await _turn(runner, "s", "three")
    texts = [p.text for c in recorder.contents() for p in c.parts or []]
    assert texts == ["one", "reply 1", "two", "reply 2", "three"]
    stored = await service.get_session(app_name=APP, user_id="u", session_id="s")
    assert stored is not None and "tampered" not in stored.state
    assert [e.content.text for e in stored.events if e.content][3] == "reply 2"


async def test_temp_keys_reach_the_turn_but_neither_storage_nor_the_cache():
    service = InMemorySessionService()
    await service.create_session(app_name=APP, user_id="u", session_id="s")
    runner = _runner(service, ScriptedModel(["a", "b"]))
    await _turn(runner, "s", "first")
    mine = await service._load_session_for_run(app_name=APP, user_id="u", session_id="s")
    assert mine is not None
    event = Event(author="bot", actions=EventActions(state_delta={"temp:scratch": 1, "k": 2}))
    await service.append_event(mine, event)
    assert mine.state["temp:scratch"] == 1 and event.actions.state_delta["temp:scratch"] == 1
    cached = await service._load_session_for_run(app_name=APP, user_id="u", session_id="s")
    stored = await service.get_session(app_name=APP, user_id="u", session_id="s")
    assert cached is not None and stored is not None
    for session in (cached, stored):
        assert session.events[-1].actions.state_delta == {"k": 2}
        assert session.state == {"k": 2}


async def test_get_session_filters_encoded_events_by_time_and_count():
    service = InMemorySessionService()
    events = [Event(author="a", content=types.ModelContent(f"e{i}"), timestamp=i) for i in range(6)]
    await _session_with(service, "s", events)
    recent = await service.get_session(
        app_name=APP,
        user_id="u",
        session_id="s",
        config=GetSessionConfig(after_timestamp=2.0, num_recent_events=3),
    )
    assert recent is not None and [e.content.text for e in recent.events] == ["e3", "e4", "e5"]


async def test_a_stored_event_costs_far_less_memory_than_a_decoded_one():
    service = InMemorySessionService(cached_events=0)
    runner = _runner(service, ScriptedModel(["The answer is 42: no tool was needed."]))
    first = await service.create_session(app_name=APP, user_id="u")
    await _turn(runner, first.id, "What is the answer?")
    stored = await service.get_session(app_name=APP, user_id="u", session_id=first.id)
    assert stored is not None and len(stored.events) == 2
    turn = stored.events
    sessions = [await service.create_session(app_name=APP, user_id="u") for _ in range(300)]
    copies = [
        [e.model_copy(deep=True, update={"id": Event.new_id()}) for e in turn] for _ in sessions
    ]
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for session, events in zip(sessions, copies, strict=True):
            for event in events:
                await service.append_event(session, event)
        del session, event, events, copies
        gc.collect()
        per_event = (tracemalloc.get_traced_memory()[0] - before) / (2 * len(sessions))
        tracemalloc.reset_peak()
        decoded = [
            await service.get_session(app_name=APP, user_id="u", session_id=s.id) for s in sessions
        ]
        per_decoded = (tracemalloc.get_traced_memory()[0] - before) / (2 * len(sessions))
    finally:
        tracemalloc.stop()
    assert all(d is not None and d.events == _same_ids(turn, d.events) for d in decoded)
    assert per_event < 512, f"{per_event:.0f} bytes per stored event"
    assert per_decoded > 4 * per_event  # what keeping decoded events would cost


def _same_ids(events: list[Event], like: list[Event]) -> list[Event]:
    return [e.model_copy(update={"id": o.id}) for e, o in zip(events, like, strict=True)]
