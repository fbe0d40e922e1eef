"""Tests of SqliteMemoryService on real SQLite files."""

from __future__ import annotations

import asyncio
import sqlite3
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from pyadk import types
from pyadk.events.event import Event
from pyadk.memory import BaseMemoryService, MemoryEntry, SearchMemoryResponse, SqliteMemoryService
from pyadk.memory.sqlite_memory_service import UNKNOWN_SESSION_ID
from pyadk.sessions.session import Session

APP, USER = "app", "u1"


def _event(text: str | None, *, author: str = "user", ts: float = 1000.0, **kw: object) -> Event:
    content = None if text is None else types.Content(role="user", parts=[types.Part(text=text)])
    return Event(author=author, content=content, timestamp=ts, **kw)


def _session(events: list[Event], *, sid: str = "s1", app: str = APP, user: str = USER) -> Session:
    return Session(id=sid, app_name=app, user_id=user, events=events)


def _texts(response: SearchMemoryResponse) -> list[str | None]:
    return [m.content.text for m in response.memories]


@pytest.fixture(params=["on", "off"], ids=["fts", "like"])
async def service(
    request: pytest.FixtureRequest, tmp_path: Path
) -> AsyncIterator[SqliteMemoryService]:
    svc = SqliteMemoryService(tmp_path / "memory.db", fts=request.param)
    yield svc
    await svc.close()


async def _search(svc: SqliteMemoryService, query: str, **scope: str) -> list[str | None]:
    app_user = {"app_name": APP, "user_id": USER, **scope}
    return _texts(await svc.search_memory(query=query, **app_user))


# -- add and search ------------------------------------------------------------------------


async def test_search_returns_entries_with_id_author_timestamp_and_origin(
    service: SqliteMemoryService,
) -> None:
    assert isinstance(service, BaseMemoryService)
    event = _event("My favourite colour is blue", ts=1000.0)
    await service.add_session_to_memory(
        _session([event, _event("Noted, you like it.", author="assistant", ts=1001.0)])
    )
    response = await service.search_memory(app_name=APP, user_id=USER, query="what COLOUR?")

    assert len(response.memories) == 1
    entry = response.memories[0]
    assert isinstance(entry, MemoryEntry)
    assert entry.content == event.content
    assert entry.author == "user"
    assert entry.timestamp == datetime.fromtimestamp(1000.0, tz=UTC).isoformat()
    assert entry.id is not None and entry.id.isdecimal()
    assert entry.custom_metadata == {"session_id": "s1", "event_id": event.id}


async def test_only_text_is_searchable_and_whole_content_is_returned(
    service: SqliteMemoryService,
) -> None:
    call = types.Part.from_function_call(name="lookup", args={"topic": "weather"})
    mixed = Event(
        author="model",
        content=types.Content(role="model", parts=[types.Part(text="Checking weather"), call]),
    )
    thought = Event(
        author="model",
        content=types.Content(
            role="model",
            parts=[types.Part(text="secret plan", thought=True), types.Part(text="ok")],
        ),
    )
    events = [
        _event(None),
        Event(author="model", content=types.Content(role="model", parts=[call])),
        mixed,
        thought,
        _event("streamed weather chunk", partial=True),
    ]
    await service.add_session_to_memory(_session(events))

    found = await service.search_memory(app_name=APP, user_id=USER, query="weather")
    assert [m.content for m in found.memories] == [mixed.content]  # the call part kept
    assert await _search(service, "secret plan") == []  # thoughts are not searchable
    assert await _search(service, "ok") == ["ok"]


async def test_more_matching_words_rank_first_then_most_recent(
    service: SqliteMemoryService,
) -> None:
    await service.add_session_to_memory(
        _session(
            [
                _event("tea is hot", ts=1.0),
                _event("coffee is hot", ts=2.0),
                _event("hot coffee with milk", ts=3.0),
                _event("nothing relevant", ts=4.0),
            ]
        )
    )
    texts = await _search(service, "hot coffee milk")
    assert texts[0] == "hot coffee with milk"
    assert texts[1:] == ["coffee is hot", "tea is hot"]


async def test_ties_are_ordered_most_recent_first_and_max_results_caps(tmp_path: Path) -> None:
    svc = SqliteMemoryService(tmp_path / "m.db", max_results=3)
    await svc.add_session_to_memory(
        _session([_event(f"note number {i}", ts=float(i)) for i in range(10)])
    )
    assert await _search(svc, "note") == ["note number 9", "note number 8", "note number 7"]
    await svc.close()


async def test_matching_ignores_case_accents_forms_and_splits_scripts(
    service: SqliteMemoryService,
) -> None:
    decomposed = "Cafe\u0301 CRÈME"  # é as e + combining accent
    await service.add_session_to_memory(
        _session([_event(decomposed, ts=1.0), _event("東京tokyo trip", ts=2.0)])
    )
    assert await _search(service, "café") == [decomposed]
    assert await _search(service, "crème") == [decomposed]
    assert await _search(service, "TOKYO") == ["東京tokyo trip"]
    assert await _search(service, "東京") == ["東京tokyo trip"]


async def test_fts_matches_whole_words_like_matches_substrings(tmp_path: Path) -> None:
    fts = SqliteMemoryService(tmp_path / "fts.db", fts="on")
    like = SqliteMemoryService(tmp_path / "like.db", fts="off")
    for svc in (fts, like):
        await svc.add_session_to_memory(_session([_event("the category of cats")]))
    assert await _search(fts, "cat") == []
    assert await _search(like, "cat") == ["the category of cats"]
    for svc in (fts, like):
        await svc.add_session_to_memory(_session([_event("Dr. Müller")], sid="s2"))
    assert await _search(fts, "muller") == ["Dr. Müller"]  # FTS5 ignores accents
    assert await _search(like, "muller") == []
    assert await _search(like, "MÜLLER") == ["Dr. Müller"]
    await fts.close()
    await like.close()


@pytest.mark.parametrize(
    "query", ["", "   ", "?!", 'AND OR NOT "', "NEAR(a b)", "col:x*", "^start", "50%_off \\"]
)
async def test_odd_queries_never_fail(service: SqliteMemoryService, query: str) -> None:
    await service.add_session_to_memory(_session([_event("a 50%_off sale AND more")]))
    response = await service.search_memory(app_name=APP, user_id=USER, query=query)
    assert isinstance(response, SearchMemoryResponse)


async def test_query_words_are_literal(service: SqliteMemoryService) -> None:
    await service.add_session_to_memory(
        _session(
            [_event("salt AND pepper", ts=1.0), _event("50% off", ts=2.0), _event("x", ts=3.0)]
        )
    )
    assert await _search(service, "and") == ["salt AND pepper"]
    assert await _search(service, "50%") == ["50% off"]
    assert await _search(service, "?!") == []


async def test_only_the_first_max_event_bytes_are_searchable(tmp_path: Path) -> None:
    svc = SqliteMemoryService(tmp_path / "m.db", max_event_bytes=12)
    text = "early words, late words"
    await svc.add_session_to_memory(_session([_event(text)]))
    assert await _search(svc, "early") == [text]  # the whole text comes back
    assert await _search(svc, "late") == []
    await svc.close()


# -- updates, deltas, deletion ----------------------------------------------------------------


async def test_adding_a_session_again_updates_without_duplicates(
    service: SqliteMemoryService,
) -> None:
    first = _event("plan a trip", ts=1.0)
    await service.add_session_to_memory(_session([first]))
    edited = first.model_copy(
        update={"content": types.Content(role="user", parts=[types.Part(text="plan a holiday")])}
    )
    await service.add_session_to_memory(_session([edited, _event("trip booked", ts=2.0)]))

    assert await _search(service, "plan") == ["plan a holiday"]
    assert await _search(service, "trip") == ["trip booked"]


async def test_add_events_to_memory_adds_a_delta(service: SqliteMemoryService) -> None:
    await service.add_session_to_memory(_session([_event("first turn about dogs", ts=1.0)]))
    await service.add_events_to_memory(
        app_name=APP,
        user_id=USER,
        events=[_event("second turn about dogs", ts=2.0)],
        session_id="s1",
        custom_metadata={"ttl": "ignored"},
    )
    await service.add_events_to_memory(
        app_name=APP, user_id=USER, events=[_event("dogs without a session", ts=3.0)]
    )
    found = await service.search_memory(app_name=APP, user_id=USER, query="dogs")
    assert _texts(found) == [
        "dogs without a session",
        "second turn about dogs",
        "first turn about dogs",
    ]
    assert [m.custom_metadata["session_id"] for m in found.memories] == [
        UNKNOWN_SESSION_ID,
        "s1",
        "s1",
    ]
    await service.add_events_to_memory(app_name=APP, user_id=USER, events=[])  # no-op


async def test_events_without_id_get_a_stable_one(service: SqliteMemoryService) -> None:
    event = _event("anonymous note", id="")
    for _ in range(2):
        await service.add_events_to_memory(app_name=APP, user_id=USER, events=[event])
    found = await service.search_memory(app_name=APP, user_id=USER, query="note")
    assert len(found.memories) == 1
    assert len(found.memories[0].custom_metadata["event_id"]) == 32


async def test_delete_memory_forgets_one_entry_of_its_user_only(
    service: SqliteMemoryService,
) -> None:
    await service.add_session_to_memory(
        _session([_event("keep this note", ts=1.0), _event("drop this note", ts=2.0)])
    )
    found = await service.search_memory(app_name=APP, user_id=USER, query="drop")
    memory_id = found.memories[0].id

    await service.delete_memory(app_name=APP, user_id="intruder", memory_id=memory_id)
    assert await _search(service, "note") == ["drop this note", "keep this note"]

    await service.delete_memory(app_name=APP, user_id=USER, memory_id=memory_id)
    assert await _search(service, "note") == ["keep this note"]
    for missing in (None, "", "999", "not-an-id"):
        await service.delete_memory(app_name=APP, user_id=USER, memory_id=missing)
    assert await _search(service, "note") == ["keep this note"]


# -- scoping ----------------------------------------------------------------------------------


async def test_memories_are_scoped_by_app_and_user(service: SqliteMemoryService) -> None:
    await service.add_session_to_memory(_session([_event("alice likes jazz")], user="alice"))
    await service.add_session_to_memory(_session([_event("bob likes jazz")], user="bob"))
    await service.add_session_to_memory(
        _session([_event("other app jazz")], app="other", user="alice")
    )
    assert await _search(service, "jazz", user_id="alice") == ["alice likes jazz"]
    assert await _search(service, "jazz", user_id="bob") == ["bob likes jazz"]
    assert await _search(service, "jazz", app_name="other", user_id="alice") == ["other app jazz"]
    assert await _search(service, "jazz", user_id="carol") == []


async def test_same_event_id_in_two_sessions_is_two_memories(service: SqliteMemoryService) -> None:
    event = _event("shared greeting")
    await service.add_session_to_memory(_session([event], sid="s1"))
    await service.add_session_to_memory(_session([event], sid="s2"))
    found = await service.search_memory(app_name=APP, user_id=USER, query="greeting")
    assert sorted(m.custom_metadata["session_id"] for m in found.memories) == ["s1", "s2"]


# -- persistence and targets ------------------------------------------------------------------


async def test_memories_survive_a_restart(tmp_path: Path) -> None:
    path = tmp_path / "nested" / "dir" / "memory.db"  # parent directories are created
    first = SqliteMemoryService(path)
    await first.add_session_to_memory(_session([_event("remember the milk")]))
    await first.close()

    second = SqliteMemoryService(str(path))
    assert await _search(second, "milk") == ["remember the milk"]
    await second.close()


async def test_sqlite_urls_name_files_like_the_session_service(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    relative = SqliteMemoryService("sqlite:///rel.db")
    absolute = SqliteMemoryService(f"sqlite:///{tmp_path / 'abs.db'}")  # sqlite:////tmp/...
    for svc in (relative, absolute):
        await svc.add_session_to_memory(_session([_event("stored in a file")]))
        await svc.close()
    assert (tmp_path / "rel.db").is_file() and (tmp_path / "abs.db").is_file()
    assert relative.path == "rel.db"

    reader = SqliteMemoryService(f"sqlite:///{tmp_path / 'rel.db'}?mode=ro")
    assert await _search(reader, "file") == ["stored in a file"]
    with pytest.raises(sqlite3.OperationalError, match="readonly"):
        await reader.add_session_to_memory(_session([_event("not written")], sid="s2"))
    await reader.close()


async def test_an_index_is_built_for_rows_written_without_one(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    plain = SqliteMemoryService(path, fts="off")
    await plain.add_session_to_memory(_session([_event("written before the index")]))
    await plain.close()
    with sqlite3.connect(path) as conn:
        assert (
            conn.execute("SELECT name FROM sqlite_master WHERE name LIKE '%fts%'").fetchall() == []
        )

    indexed = SqliteMemoryService(path, fts="on")
    assert await _search(indexed, "index") == ["written before the index"]
    await indexed.close()


async def test_in_memory_database_lives_until_close(tmp_path: Path) -> None:
    svc = SqliteMemoryService(":memory:")
    await svc.add_session_to_memory(_session([_event("ephemeral thought")]))
    assert await _search(svc, "ephemeral") == ["ephemeral thought"]
    await svc.close()
    assert await _search(svc, "ephemeral") == []
    await svc.close()


# -- concurrency ------------------------------------------------------------------------------


async def test_concurrent_writers_on_one_file_lose_nothing(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    services = [SqliteMemoryService(path) for _ in range(3)]

    async def write(n: int) -> None:
        svc = services[n % len(services)]
        await svc.add_session_to_memory(_session([_event(f"fact {n} recorded")], sid=f"s{n}"))

    await asyncio.gather(*(write(n) for n in range(30)))
    found = await services[0].search_memory(app_name=APP, user_id=USER, query="recorded")
    assert len(found.memories) == 30
    assert len({m.id for m in found.memories}) == 30
    for svc in services:
        await svc.close()


async def test_writers_in_other_processes_take_turns(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    script = textwrap.dedent(
        """
        import asyncio, sys
        from pyadk import types
        from pyadk.events.event import Event
        from pyadk.memory import SqliteMemoryService

        async def main(tag):
            svc = SqliteMemoryService(sys.argv[1])
            for i in range(20):
                event = Event(author="user", content=types.Content(
                    role="user", parts=[types.Part(text=f"process {tag} wrote {i}")]))
                await svc.add_events_to_memory(
                    app_name="app", user_id="u1", events=[event], session_id=tag)
            await svc.close()

        asyncio.run(main(sys.argv[2]))
        """
    )
    procs = [
        subprocess.Popen([sys.executable, "-c", script, str(path), tag]) for tag in ("a", "b", "c")
    ]
    for proc in procs:
        assert await asyncio.to_thread(proc.wait, 60) == 0

    svc = SqliteMemoryService(path, max_results=100)
    found = await svc.search_memory(app_name=APP, user_id=USER, query="wrote")
    assert len(found.memories) == 60
    await svc.close()


async def test_a_write_waiting_for_the_lock_does_not_block_the_event_loop(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    svc = SqliteMemoryService(path, busy_timeout=10)
    await svc.add_session_to_memory(_session([_event("before the lock", ts=1.0)]))

    blocker = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    blocker.execute("BEGIN IMMEDIATE")  # another writer holds the lock
    ticks = 0

    async def tick() -> None:
        nonlocal ticks
        while True:
            ticks += 1
            await asyncio.sleep(0.01)

    ticker = asyncio.create_task(tick())
    write = asyncio.create_task(
        svc.add_session_to_memory(_session([_event("after the lock", ts=2.0)]))
    )
    await asyncio.sleep(0.3)
    assert not write.done() and ticks >= 5
    # reads go on while the write waits (WAL)
    assert await _search(svc, "lock") == ["before the lock"]
    blocker.execute("COMMIT")
    blocker.close()
    await asyncio.wait_for(write, 10)
    ticker.cancel()
    assert await _search(svc, "lock") == ["after the lock", "before the lock"]
    await svc.close()


# -- bad input and close ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"db_path": ""}, "db_path must be set"),
        ({"db_path": "x.db", "fts": "yes"}, "fts must be 'auto', 'on' or 'off'"),
        ({"db_path": "x.db", "max_results": 0}, "max_results must be a positive int"),
        ({"db_path": "x.db", "max_event_bytes": -1}, "max_event_bytes must be a positive int"),
        ({"db_path": "x.db", "busy_timeout": -1}, "busy_timeout must be >= 0"),
        ({"db_path": "sqlite://host/x.db"}, "a SQLite URL names no host"),
        ({"db_path": "sqlite:x.db"}, "Invalid SQLite URI"),
    ],
)
def test_bad_arguments_are_refused(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        SqliteMemoryService(**kwargs)  # type: ignore[arg-type]


def test_a_directory_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="is a directory"):
        SqliteMemoryService(tmp_path)


async def test_a_file_that_is_not_a_database_names_itself(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("just some text, long enough to not be a SQLite header at all\n" * 20)
    svc = SqliteMemoryService(path)
    with pytest.raises(sqlite3.DatabaseError) as info:
        await svc.search_memory(app_name=APP, user_id=USER, query="text")
    assert any(str(path) in note for note in info.value.__notes__)
    await svc.close()


async def test_a_newer_schema_version_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    svc = SqliteMemoryService(path)
    await svc.add_session_to_memory(_session([_event("v1 data")]))
    await svc.close()
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE adk_memory_metadata SET value = '2' WHERE key = 'schema_version'")

    newer = SqliteMemoryService(path)
    with pytest.raises(
        RuntimeError, match="schema version 2; this SqliteMemoryService reads version 1"
    ):
        await newer.search_memory(app_name=APP, user_id=USER, query="data")
    await newer.close()


async def test_fts_on_refuses_a_read_only_database_without_index(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    plain = SqliteMemoryService(path, fts="off")
    await plain.add_session_to_memory(_session([_event("plain row")]))
    await plain.close()
    reader = SqliteMemoryService(f"sqlite:///{path}?mode=ro", fts="on")
    with pytest.raises(RuntimeError, match="has no FTS5 index"):
        await reader.search_memory(app_name=APP, user_id=USER, query="row")
    await reader.close()
    auto = SqliteMemoryService(f"sqlite:///{path}?mode=ro")  # falls back to LIKE
    assert await _search(auto, "row") == ["plain row"]
    await auto.close()


async def test_close_ends_the_threads_and_the_service_reopens(tmp_path: Path) -> None:
    def threads() -> int:
        return sum(t.name.startswith("pyadk-sqlite-memory") for t in threading.enumerate())

    before = threads()
    svc = SqliteMemoryService(tmp_path / "m.db")
    await svc.add_session_to_memory(_session([_event("before close", ts=1.0)]))
    assert await _search(svc, "close") == ["before close"]
    assert threads() > before
    await svc.close()
    await svc.close()  # twice is fine

    deadline = time.monotonic() + 5
    while threads() > before:
        assert time.monotonic() < deadline, "the service's threads did not end"
        await asyncio.sleep(0.01)

    await svc.add_session_to_memory(_session([_event("after close", ts=2.0)], sid="s2"))
    assert sorted(await _search(svc, "close")) == ["after close", "before close"]
    await svc.close()


def test_exported_lazily_from_pyadk_memory() -> None:
    import pyadk.memory

    assert "SqliteMemoryService" in dir(pyadk.memory)
    assert pyadk.memory.SqliteMemoryService is SqliteMemoryService
    assert repr(SqliteMemoryService("x.db")) == "SqliteMemoryService('x.db')"


async def test_an_agent_recalls_past_sessions_after_a_restart(tmp_path: Path) -> None:
    from pyadk.agents import LlmAgent
    from pyadk.runners import Runner
    from pyadk.sessions import SqliteSessionService
    from pyadk.testing import ScriptedModel, function_call
    from pyadk.tools import load_memory

    async def turn(model: ScriptedModel, text: str) -> list[Event]:
        sessions = SqliteSessionService(tmp_path / "sessions.db")
        memory = SqliteMemoryService(tmp_path / "memory.db")
        agent = LlmAgent(name="pets", model=model, tools=[load_memory])
        runner = Runner(
            agent=agent, app_name="pets", session_service=sessions, memory_service=memory
        )
        session = await sessions.create_session(app_name="pets", user_id="ada")
        message = types.UserContent(text)
        events = [
            e
            async for e in runner.run_async(
                user_id="ada", session_id=session.id, new_message=message
            )
        ]
        done = await sessions.get_session(app_name="pets", user_id="ada", session_id=session.id)
        assert done is not None
        await memory.add_session_to_memory(done)
        await memory.close()
        await sessions.close()
        return events

    await turn(ScriptedModel(["Noted."]), "My cat is called Tom.")
    events = await turn(
        ScriptedModel([function_call("load_memory", {"query": "cat"}), "Tom."]),
        "What is my cat called?",
    )
    found = events[1].get_function_responses()[0].response["memories"]
    assert [m["text"] for m in found] == ["My cat is called Tom."]
    assert found[0]["author"] == "user"


async def test_other_services_refuse_the_new_calls_clearly() -> None:
    from pyadk.memory import BaseMemoryService, InMemoryMemoryService, SearchMemoryResponse

    class KeywordOnly(BaseMemoryService):  # only the two required methods
        async def add_session_to_memory(self, session: Session) -> None:
            return None

        async def search_memory(self, *, app_name, user_id, query) -> SearchMemoryResponse:
            return SearchMemoryResponse()

    service = KeywordOnly()
    with pytest.raises(NotImplementedError, match="KeywordOnly does not support"):
        await service.add_events_to_memory(app_name=APP, user_id=USER, events=[])
    with pytest.raises(NotImplementedError, match="direct memory writes"):
        await service.add_memory(app_name=APP, user_id=USER, memories=[])
    with pytest.raises(NotImplementedError, match="deleting individual memories"):
        await service.delete_memory(app_name=APP, user_id=USER, memory_id="1")
    with pytest.raises(NotImplementedError, match="direct memory writes"):
        await InMemoryMemoryService().add_memory(app_name=APP, user_id=USER, memories=[])


async def test_calls_in_flight_when_close_runs_complete(tmp_path: Path) -> None:
    svc = SqliteMemoryService(tmp_path / "m.db")
    await svc.add_session_to_memory(_session([_event("already stored", ts=1.0)]))
    write = asyncio.create_task(
        svc.add_session_to_memory(_session([_event("stored while closing", ts=2.0)], sid="s2"))
    )
    search = asyncio.create_task(svc.search_memory(app_name=APP, user_id=USER, query="stored"))
    await asyncio.sleep(0)  # both calls are queued
    await svc.close()
    await write
    assert "already stored" in _texts(await search)
    assert sorted(await _search(svc, "stored")) == ["already stored", "stored while closing"]
    await svc.close()


async def test_close_during_the_first_call_leaves_nothing_open(tmp_path: Path) -> None:
    svc = SqliteMemoryService(tmp_path / "m.db")
    first = asyncio.create_task(svc.search_memory(app_name=APP, user_id=USER, query="x"))
    await asyncio.sleep(0)  # the file is being opened
    await svc.close()
    assert (await first).memories == []  # ran again on a fresh connection
    await svc.close()
    assert svc._conns == {} and svc._workers == {}
