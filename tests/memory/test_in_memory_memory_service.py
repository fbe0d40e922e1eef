"""Tests of InMemoryMemoryService."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from pyadk import types
from pyadk.events.event import Event
from pyadk.memory import (
    BaseMemoryService,
    InMemoryMemoryService,
    MemoryEntry,
    SearchMemoryResponse,
)
from pyadk.sessions.session import Session

APP, USER = "app", "u1"


def _event(text: str | None, *, author: str = "user", ts: float = 1000.0, **kw: object) -> Event:
    content = None if text is None else types.Content(role="user", parts=[types.Part(text=text)])
    return Event(author=author, content=content, timestamp=ts, **kw)


def _session(events: list[Event], *, sid: str = "s1", app: str = APP, user: str = USER) -> Session:
    return Session(id=sid, app_name=app, user_id=user, events=events)


def _texts(response: SearchMemoryResponse) -> list[str | None]:
    return [m.content.text for m in response.memories]


@pytest.fixture
def service() -> InMemoryMemoryService:
    return InMemoryMemoryService()


def test_is_a_base_memory_service(service: InMemoryMemoryService) -> None:
    assert isinstance(service, BaseMemoryService)


async def test_search_returns_matching_entries_with_author_and_timestamp(
    service: InMemoryMemoryService,
) -> None:
    await service.add_session_to_memory(
        _session(
            [
                _event("My favourite colour is blue", author="user", ts=1000.0),
                _event("Noted, you like it.", author="assistant", ts=1001.0),
            ]
        )
    )
    response = await service.search_memory(app_name=APP, user_id=USER, query="what COLOUR?")

    assert len(response.memories) == 1
    entry = response.memories[0]
    assert isinstance(entry, MemoryEntry)
    assert entry.content.text == "My favourite colour is blue"
    assert entry.content.role == "user"
    assert entry.author == "user"
    assert entry.timestamp is not None
    assert datetime.fromisoformat(entry.timestamp) == datetime.fromtimestamp(1000.0, UTC)


async def test_no_match_returns_empty(service: InMemoryMemoryService) -> None:
    await service.add_session_to_memory(_session([_event("the cat sat on the mat")]))
    response = await service.search_memory(app_name=APP, user_id=USER, query="dog")
    assert response.memories == []


async def test_matching_is_by_whole_words(service: InMemoryMemoryService) -> None:
    await service.add_session_to_memory(
        _session([_event("category theory"), _event("I don't know"), _event("room 101")])
    )
    assert _texts(await service.search_memory(app_name=APP, user_id=USER, query="cat")) == []
    assert _texts(await service.search_memory(app_name=APP, user_id=USER, query="DON'T")) == [
        "I don't know"
    ]
    assert _texts(await service.search_memory(app_name=APP, user_id=USER, query="101!")) == [
        "room 101"
    ]
    # Quotes around a word do not stop it matching.
    assert _texts(await service.search_memory(app_name=APP, user_id=USER, query="'room'")) == [
        "room 101"
    ]


async def test_ordered_by_matching_words_then_recency(service: InMemoryMemoryService) -> None:
    await service.add_session_to_memory(
        _session(
            [
                _event("apples only", ts=1.0),
                _event("apples and pears", ts=2.0),
                _event("pears only, newer", ts=3.0),
                _event("nothing relevant", ts=4.0),
            ]
        )
    )
    await service.add_session_to_memory(
        _session([_event("apples and pears again", ts=0.5)], sid="s2")
    )
    response = await service.search_memory(app_name=APP, user_id=USER, query="apples pears")
    assert _texts(response) == [
        "apples and pears",
        "apples and pears again",
        "pears only, newer",
        "apples only",
    ]


async def test_repeated_query_words_count_once(service: InMemoryMemoryService) -> None:
    await service.add_session_to_memory(
        _session([_event("tea tea tea", ts=2.0), _event("tea and cake", ts=1.0)])
    )
    response = await service.search_memory(app_name=APP, user_id=USER, query="tea tea cake")
    assert _texts(response) == ["tea and cake", "tea tea tea"]


async def test_events_without_text_are_not_stored(service: InMemoryMemoryService) -> None:
    call = Event(
        author="agent",
        content=types.Content(
            role="model", parts=[types.Part.from_function_call(name="weather", args={})]
        ),
    )
    thought = Event(
        author="agent",
        content=types.Content(role="model", parts=[types.Part(text="weather plan", thought=True)]),
    )
    await service.add_session_to_memory(
        _session([_event(None), call, thought, _event("the weather is sunny")])
    )
    response = await service.search_memory(app_name=APP, user_id=USER, query="weather")
    assert _texts(response) == ["the weather is sunny"]


async def test_partial_events_are_not_stored(service: InMemoryMemoryService) -> None:
    await service.add_session_to_memory(
        _session([_event("streaming chunk", partial=True), _event("final streaming answer")])
    )
    response = await service.search_memory(app_name=APP, user_id=USER, query="streaming")
    assert _texts(response) == ["final streaming answer"]


async def test_no_cross_user_or_cross_app_leakage(service: InMemoryMemoryService) -> None:
    await service.add_session_to_memory(_session([_event("secret password one")], user="alice"))
    await service.add_session_to_memory(_session([_event("secret password two")], user="bob"))
    await service.add_session_to_memory(
        _session([_event("secret password three")], user="alice", app="other")
    )

    alice = await service.search_memory(app_name=APP, user_id="alice", query="secret")
    bob = await service.search_memory(app_name=APP, user_id="bob", query="secret")
    other = await service.search_memory(app_name="other", user_id="alice", query="secret")
    nobody = await service.search_memory(app_name=APP, user_id="carol", query="secret")

    assert _texts(alice) == ["secret password one"]
    assert _texts(bob) == ["secret password two"]
    assert _texts(other) == ["secret password three"]
    assert nobody.memories == []


async def test_same_session_id_for_different_users_does_not_collide(
    service: InMemoryMemoryService,
) -> None:
    await service.add_session_to_memory(_session([_event("alpha note")], sid="s", user="a"))
    await service.add_session_to_memory(_session([_event("alpha memo")], sid="s", user="b"))
    assert _texts(await service.search_memory(app_name=APP, user_id="a", query="alpha")) == [
        "alpha note"
    ]
    assert _texts(await service.search_memory(app_name=APP, user_id="b", query="alpha")) == [
        "alpha memo"
    ]


async def test_readding_a_session_replaces_it(service: InMemoryMemoryService) -> None:
    session = _session([_event("hello world", ts=1.0)])
    await service.add_session_to_memory(session)
    session.events.append(_event("hello again", ts=2.0))
    await service.add_session_to_memory(session)

    response = await service.search_memory(app_name=APP, user_id=USER, query="hello")
    assert _texts(response) == ["hello again", "hello world"]

    # Re-adding with the old content gone removes it from memory.
    await service.add_session_to_memory(_session([_event("goodbye", ts=3.0)]))
    assert (await service.search_memory(app_name=APP, user_id=USER, query="hello")).memories == []
    assert _texts(await service.search_memory(app_name=APP, user_id=USER, query="goodbye")) == [
        "goodbye"
    ]


async def test_other_sessions_are_kept(service: InMemoryMemoryService) -> None:
    await service.add_session_to_memory(_session([_event("shared topic one")], sid="s1"))
    await service.add_session_to_memory(_session([_event("shared topic two", ts=2000.0)], sid="s2"))
    await service.add_session_to_memory(_session([_event("shared topic one, edited")], sid="s1"))
    response = await service.search_memory(app_name=APP, user_id=USER, query="topic")
    assert sorted(_texts(response)) == ["shared topic one, edited", "shared topic two"]  # type: ignore[type-var]


@pytest.mark.parametrize("query", ["", "   ", "?!."])
async def test_empty_query_returns_nothing(service: InMemoryMemoryService, query: str) -> None:
    await service.add_session_to_memory(_session([_event("anything at all"), _event("? ! .")]))
    response = await service.search_memory(app_name=APP, user_id=USER, query=query)
    assert response.memories == []


async def test_stored_memory_is_isolated_from_mutation(service: InMemoryMemoryService) -> None:
    session = _session([_event("original text")])
    await service.add_session_to_memory(session)
    content = session.events[0].content
    assert content is not None and content.parts
    content.parts[0].text = "original changed by caller"

    first = await service.search_memory(app_name=APP, user_id=USER, query="original")
    assert first.memories[0].content.parts is not None
    first.memories[0].content.parts[0].text = "changed by searcher"

    second = await service.search_memory(app_name=APP, user_id=USER, query="original")
    assert _texts(second) == ["original text"]


async def test_events_are_added_once_each_and_kept_per_session(
    service: InMemoryMemoryService,
) -> None:
    first, second = _event("tea in Kyoto", ts=1.0), _event("tea in Nara", ts=2.0)
    await service.add_events_to_memory(app_name=APP, user_id=USER, events=[first], session_id="s1")
    await service.add_events_to_memory(
        app_name=APP, user_id=USER, events=[first, second], session_id="s1"
    )
    await service.add_events_to_memory(app_name=APP, user_id=USER, events=[_event("tea alone")])
    found = await service.search_memory(app_name=APP, user_id=USER, query="tea")
    assert _texts(found) == ["tea alone", "tea in Nara", "tea in Kyoto"]  # newest first
    assert [m.id for m in found.memories][1:] == [second.id, first.id]
    # A session added later replaces its own memories only.
    await service.add_session_to_memory(_session([_event("tea in Osaka")], sid="s1"))
    found = await service.search_memory(app_name=APP, user_id=USER, query="tea")
    assert sorted(_texts(found)) == ["tea alone", "tea in Osaka"]


async def test_a_deleted_memory_is_forgotten_for_good(service: InMemoryMemoryService) -> None:
    keep, drop = _event("pick up the keys"), _event("pick up the cake")
    await service.add_session_to_memory(_session([keep, drop]))
    await service.delete_memory(app_name=APP, user_id=USER, memory_id=drop.id)
    await service.delete_memory(app_name=APP, user_id=USER, memory_id=None)  # nothing
    await service.delete_memory(app_name="other", user_id=USER, memory_id=keep.id)  # not theirs
    assert _texts(await service.search_memory(app_name=APP, user_id=USER, query="pick")) == [
        "pick up the keys"
    ]
    await service.add_session_to_memory(_session([keep, drop]))  # the session again
    await service.add_events_to_memory(app_name=APP, user_id=USER, events=[drop], session_id="s1")
    assert _texts(await service.search_memory(app_name=APP, user_id=USER, query="cake")) == []
