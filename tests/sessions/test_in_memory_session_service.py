"""InMemorySessionService: CRUD, scoped state, partial events, filters, copy semantics."""

from __future__ import annotations

import uuid

import pytest

from pyadk import types
from pyadk.events import Event, EventActions
from pyadk.sessions import (
    GetSessionConfig,
    InMemorySessionService,
    Session,
    SessionNotFoundError,
)
from pyadk.sessions import in_memory_session_service as in_memory_module

APP = "app"


def _event(text: str = "hi", *, author: str = "agent", **kwargs) -> Event:
    return Event(
        author=author,
        content=types.Content(role="model", parts=[types.Part(text=text)]),
        **kwargs,
    )


def _delta(delta: dict, *, author: str = "agent") -> Event:
    return Event(author=author, actions=EventActions(state_delta=delta))


@pytest.fixture
def service() -> InMemorySessionService:
    return InMemorySessionService()


# -- create / get / list / delete ---------------------------------------------------------


async def test_create_with_explicit_id_then_get_returns_it(service):
    created = await service.create_session(
        app_name=APP, user_id="u", session_id="s1", state={"k": 1}
    )
    assert isinstance(created, Session)
    assert (created.id, created.app_name, created.user_id) == ("s1", APP, "u")
    assert created.state == {"k": 1}
    assert created.events == []

    got = await service.get_session(app_name=APP, user_id="u", session_id="s1")
    assert got is not None
    assert (got.id, got.state, got.events) == ("s1", {"k": 1}, [])


async def test_create_without_id_generates_distinct_uuids(service):
    first = await service.create_session(app_name=APP, user_id="u")
    second = await service.create_session(app_name=APP, user_id="u")
    assert first.id != second.id
    uuid.UUID(first.id)  # a valid UUID
    assert await service.get_session(app_name=APP, user_id="u", session_id=first.id)


async def test_duplicate_session_id_is_rejected_with_clear_message(service):
    await service.create_session(app_name=APP, user_id="u", session_id="dup", state={"a": 1})
    with pytest.raises(ValueError, match="'dup' already exists"):
        await service.create_session(app_name=APP, user_id="u", session_id="dup", state={"a": 2})
    # The original is untouched.
    got = await service.get_session(app_name=APP, user_id="u", session_id="dup")
    assert got.state == {"a": 1}
    # The same id is fine for another user or app.
    await service.create_session(app_name=APP, user_id="other", session_id="dup")
    await service.create_session(app_name="other_app", user_id="u", session_id="dup")


async def test_get_missing_session_returns_none(service):
    assert await service.get_session(app_name=APP, user_id="u", session_id="nope") is None
    await service.create_session(app_name=APP, user_id="u", session_id="s")
    # Right id, wrong user or app.
    assert await service.get_session(app_name=APP, user_id="x", session_id="s") is None
    assert await service.get_session(app_name="x", user_id="u", session_id="s") is None


async def test_list_sessions_only_that_app_and_user_without_events_or_state(service):
    for sid in ("a", "b"):
        session = await service.create_session(
            app_name=APP, user_id="u", session_id=sid, state={"k": sid}
        )
        await service.append_event(session, _event(f"hello {sid}"))
    await service.create_session(app_name=APP, user_id="other", session_id="c")
    await service.create_session(app_name="other_app", user_id="u", session_id="d")

    listed = (await service.list_sessions(app_name=APP, user_id="u")).sessions
    assert sorted(s.id for s in listed) == ["a", "b"]
    for s in listed:
        assert s.events == []
        assert s.state == {}
        assert (s.app_name, s.user_id) == (APP, "u")
    assert (await service.list_sessions(app_name=APP, user_id="nobody")).sessions == []


async def test_delete_session_removes_only_it(service):
    await service.create_session(app_name=APP, user_id="u", session_id="keep")
    await service.create_session(app_name=APP, user_id="u", session_id="gone")
    await service.delete_session(app_name=APP, user_id="u", session_id="gone")
    assert await service.get_session(app_name=APP, user_id="u", session_id="gone") is None
    assert await service.get_session(app_name=APP, user_id="u", session_id="keep") is not None
    ids = [s.id for s in (await service.list_sessions(app_name=APP, user_id="u")).sessions]
    assert ids == ["keep"]
    # Deleting a missing session is not an error.
    await service.delete_session(app_name=APP, user_id="u", session_id="gone")


# -- append_event and scoped state ---------------------------------------------------------


async def test_append_event_stores_event_and_applies_delta(service):
    session = await service.create_session(app_name=APP, user_id="u", session_id="s")
    event = _event("answer", actions=EventActions(state_delta={"count": 1}), timestamp=123.0)
    returned = await service.append_event(session, event)
    assert returned is event
    # The live session is updated too.
    assert session.state == {"count": 1}
    assert session.events[-1] is event

    got = await service.get_session(app_name=APP, user_id="u", session_id="s")
    assert [e.id for e in got.events] == [event.id]
    assert got.events[0].content.text == "answer"
    assert got.state == {"count": 1}
    assert got.last_update_time == 123.0


async def test_app_and_user_state_shared_across_sessions(service):
    s1 = await service.create_session(app_name=APP, user_id="alice", session_id="s1")
    s2 = await service.create_session(app_name=APP, user_id="alice", session_id="s2")
    bob = await service.create_session(app_name=APP, user_id="bob", session_id="b")
    await service.append_event(s1, _delta({"app:theme": "dark", "user:lang": "fr", "own": 1}))

    got_s2 = await service.get_session(app_name=APP, user_id="alice", session_id=s2.id)
    assert got_s2.state == {"app:theme": "dark", "user:lang": "fr"}
    got_bob = await service.get_session(app_name=APP, user_id="bob", session_id=bob.id)
    assert got_bob.state == {"app:theme": "dark"}
    got_s1 = await service.get_session(app_name=APP, user_id="alice", session_id=s1.id)
    assert got_s1.state == {"app:theme": "dark", "user:lang": "fr", "own": 1}

    # A session created later sees the shared values too; another app sees none.
    later = await service.create_session(app_name=APP, user_id="alice")
    assert later.state == {"app:theme": "dark", "user:lang": "fr"}
    elsewhere = await service.create_session(app_name="other", user_id="alice")
    assert elsewhere.state == {}

    # An update from another session is seen by the first one on its next read.
    await service.append_event(bob, _delta({"app:theme": "light"}))
    got_s1 = await service.get_session(app_name=APP, user_id="alice", session_id=s1.id)
    assert got_s1.state["app:theme"] == "light"


async def test_state_given_at_create_is_split_by_scope(service):
    await service.create_session(
        app_name=APP,
        user_id="alice",
        session_id="s1",
        state={"app:a": 1, "user:b": 2, "own": 3, "temp:t": 4},
    )
    other_user = await service.create_session(app_name=APP, user_id="bob")
    assert other_user.state == {"app:a": 1}
    same_user = await service.create_session(app_name=APP, user_id="alice")
    assert same_user.state == {"app:a": 1, "user:b": 2}
    got = await service.get_session(app_name=APP, user_id="alice", session_id="s1")
    assert got.state == {"app:a": 1, "user:b": 2, "own": 3}


async def test_temp_state_is_live_only_and_never_persisted(service):
    session = await service.create_session(app_name=APP, user_id="u", session_id="s")
    event = _delta({"temp:scratch": "x", "kept": "y"})
    await service.append_event(session, event)
    # The live session (the one the running invocation holds) sees temp: values.
    assert session.state["temp:scratch"] == "x"
    assert session.state["kept"] == "y"

    got = await service.get_session(app_name=APP, user_id="u", session_id="s")
    assert got.state == {"kept": "y"}
    assert got.events[0].actions.state_delta == {"kept": "y"}


async def test_partial_events_are_not_stored(service):
    session = await service.create_session(app_name=APP, user_id="u", session_id="s")
    chunk = _event("chu", partial=True, actions=EventActions(state_delta={"k": 1}))
    returned = await service.append_event(session, chunk)
    assert returned is chunk
    assert session.events == []
    assert session.state == {}
    got = await service.get_session(app_name=APP, user_id="u", session_id="s")
    assert got.events == []
    assert got.state == {}


async def test_append_to_unknown_session_raises(service):
    ghost = Session(id="ghost", app_name=APP, user_id="u")
    with pytest.raises(SessionNotFoundError, match="'ghost' not found"):
        await service.append_event(ghost, _event())
    # A deleted session cannot be appended to either.
    session = await service.create_session(app_name=APP, user_id="u", session_id="s")
    await service.delete_session(app_name=APP, user_id="u", session_id="s")
    with pytest.raises(SessionNotFoundError):
        await service.append_event(session, _event())
    assert await service.get_session(app_name=APP, user_id="u", session_id="s") is None


# -- GetSessionConfig ----------------------------------------------------------------------


async def _session_with_timestamps(service, stamps):
    session = await service.create_session(app_name=APP, user_id="u", session_id="s")
    for i, ts in enumerate(stamps):
        await service.append_event(session, _event(f"e{i}", timestamp=ts))
    return session


async def test_get_session_num_recent_events(service):
    await _session_with_timestamps(service, [1.0, 2.0, 3.0, 4.0])
    got = await service.get_session(
        app_name=APP, user_id="u", session_id="s", config=GetSessionConfig(num_recent_events=2)
    )
    assert [e.content.text for e in got.events] == ["e2", "e3"]
    # The stored session still has all events.
    full = await service.get_session(app_name=APP, user_id="u", session_id="s")
    assert len(full.events) == 4


async def test_get_session_after_timestamp_and_both_filters(service):
    await _session_with_timestamps(service, [1.0, 2.0, 3.0, 4.0])
    got = await service.get_session(
        app_name=APP, user_id="u", session_id="s", config=GetSessionConfig(after_timestamp=2.5)
    )
    assert [e.content.text for e in got.events] == ["e2", "e3"]
    both = await service.get_session(
        app_name=APP,
        user_id="u",
        session_id="s",
        config=GetSessionConfig(after_timestamp=1.5, num_recent_events=1),
    )
    assert [e.content.text for e in both.events] == ["e3"]


# -- copies ---------------------------------------------------------------------------------


async def test_mutating_a_returned_session_does_not_change_storage(service):
    session = await service.create_session(
        app_name=APP, user_id="u", session_id="s", state={"nested": {"a": 1}, "user:x": [1]}
    )
    event = _event("original", actions=EventActions(state_delta={"k": "v"}))
    await service.append_event(session, event)

    got = await service.get_session(app_name=APP, user_id="u", session_id="s")
    got.state["nested"]["a"] = 999
    got.state["user:x"].append(2)
    got.state["new"] = True
    got.events[0].content.parts[0].text = "tampered"
    got.events[0].content.parts.append(types.Part(text="extra"))
    got.events[0].actions.state_delta["k"] = "tampered"
    got.events.append(_event("injected"))

    again = await service.get_session(app_name=APP, user_id="u", session_id="s")
    assert again.state == {"nested": {"a": 1}, "user:x": [1], "k": "v"}
    assert len(again.events) == 1
    assert [p.text for p in again.events[0].content.parts] == ["original"]
    assert again.events[0].actions.state_delta == {"k": "v"}


async def test_mutating_created_session_state_does_not_change_storage(service):
    initial = {"nested": {"a": 1}}
    created = await service.create_session(app_name=APP, user_id="u", session_id="s", state=initial)
    initial["nested"]["a"] = 2  # the caller's dict
    created.state["nested"]["a"] = 3  # the returned session
    got = await service.get_session(app_name=APP, user_id="u", session_id="s")
    assert got.state == {"nested": {"a": 1}}


async def test_mutating_an_event_after_append_does_not_change_storage(service):
    session = await service.create_session(app_name=APP, user_id="u", session_id="s")
    event = _event("original", actions=EventActions(state_delta={"k": {"v": 1}}))
    await service.append_event(session, event)
    event.content.parts[0].text = "tampered"
    event.actions.state_delta["k"]["v"] = 2
    event.author = "someone_else"

    got = await service.get_session(app_name=APP, user_id="u", session_id="s")
    stored = got.events[0]
    assert stored.content.text == "original"
    assert stored.author == "agent"
    assert stored.actions.state_delta == {"k": {"v": 1}}
    assert got.state == {"k": {"v": 1}}


# -- append cost does not grow with history ------------------------------------------------


async def test_append_copies_only_the_new_event_even_with_long_history(service, monkeypatch):
    session = await service.create_session(app_name=APP, user_id="u", session_id="s")
    for i in range(5000):
        await service.append_event(session, _event(f"e{i}"))

    copied: list[str] = []
    deep_copied: list[str] = []
    original_encode = in_memory_module.encode
    original_deepcopy = Event.__deepcopy__

    def counting_copy(event):
        copied.append(event.id)
        return original_encode(event)

    def counting_deepcopy(self, memo=None):
        deep_copied.append(self.id)
        return original_deepcopy(self, memo)

    monkeypatch.setattr(in_memory_module, "encode", counting_copy)
    monkeypatch.setattr(Event, "__deepcopy__", counting_deepcopy)

    new = _event("new one", actions=EventActions(state_delta={"k": 1}))
    await service.append_event(session, new)
    assert copied == [new.id]  # one private copy: the new event's
    assert deep_copied == []

    monkeypatch.undo()
    got = await service.get_session(app_name=APP, user_id="u", session_id="s")
    assert len(got.events) == 5001
    assert got.events[-1].content.text == "new one"
    assert got.state == {"k": 1}
