"""SqliteSessionService specifics: WAL, worker thread, cost per append, JSON-only state."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest
from pydantic import BaseModel

from pyadk import types
from pyadk.agents.llm_agent import LlmAgent
from pyadk.events import Event, EventActions
from pyadk.runners import Runner
from pyadk.sessions import (
    Session,
    SessionExistsError,
    SqliteSessionService,
    StaleSessionError,
)
from pyadk.sessions._migrations import LATEST_VERSION
from pyadk.sessions.sqlite_session_service import sqlite_target
from pyadk.testing import ScriptedModel
from pyadk.testing.session_conformance import delta_event, text_event


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "db" / "sessions.db"


@pytest.fixture
async def service(path: Path):
    svc = SqliteSessionService(path)
    yield svc
    await svc.close()


def _statements(service: SqliteSessionService) -> list[str]:
    """Starts recording the SQL the service's connection runs."""
    seen: list[str] = []
    for conn in service._conns.values():
        conn.set_trace_callback(seen.append)
    return seen


async def test_google_adk_argument_name_is_accepted(path):
    service = SqliteSessionService(db_path=str(path))  # as ported google-adk code writes it
    try:
        await service.create_session(app_name="a", user_id="u", session_id="s")
    finally:
        await service.close()
    reopened = SqliteSessionService(path)
    try:
        assert await reopened.get_session(app_name="a", user_id="u", session_id="s")
    finally:
        await reopened.close()


@pytest.mark.parametrize("scheme", ["sqlite", "sqlite+aiosqlite"])
async def test_a_sqlalchemy_style_url_names_the_same_file_as_its_path(path, scheme):
    # google-adk's SqliteSessionService takes both; a URL must not become a directory
    # literally named "sqlite:" under the working directory.
    service = SqliteSessionService(f"{scheme}:///{path}")
    try:
        await service.create_session(app_name="a", user_id="u", session_id="s")
    finally:
        await service.close()
    assert service.path == str(path)
    reopened = SqliteSessionService(path)
    try:
        assert await reopened.get_session(app_name="a", user_id="u", session_id="s")
    finally:
        await reopened.close()


def test_sqlite_urls_follow_sqlalchemy_conventions(tmp_path, monkeypatch):
    assert sqlite_target("sqlite:///relative.db") == "relative.db"
    assert sqlite_target("sqlite:////abs/s.db") == "/abs/s.db"
    assert sqlite_target("sqlite://") == ":memory:"
    assert sqlite_target("sqlite:///:memory:") == ":memory:"
    assert sqlite_target("sqlite:////abs/my%20s.db") == "/abs/my s.db"
    assert sqlite_target("sqlite:////abs/s.db?mode=ro") == "file:/abs/s.db?mode=ro"
    assert sqlite_target(tmp_path / "s.db") == str(tmp_path / "s.db")
    assert sqlite_target("file:x.db?mode=memory") == "file:x.db?mode=memory"
    for bad in ("sqlite://host/x.db", "sqlite:x.db"):
        with pytest.raises(ValueError, match=r"Invalid SQLite URI .* sqlite:///relative\.db"):
            sqlite_target(bad)


async def test_a_read_only_url_cannot_write(path):
    writer = SqliteSessionService(path)
    await writer.create_session(app_name="a", user_id="u", session_id="s")
    await writer.close()
    reader = SqliteSessionService(f"sqlite:///{path}?mode=ro")
    try:
        with pytest.raises(sqlite3.OperationalError, match="readonly"):
            await reader.create_session(app_name="a", user_id="u", session_id="t")
    finally:
        await reader.close()


async def test_creates_parent_dirs_and_uses_wal(service, path):
    await service.create_session(app_name="a", user_id="u")
    assert path.exists()
    with sqlite3.connect(path) as raw:
        assert raw.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert raw.execute("SELECT version FROM pyadk_schema").fetchone()[0] == LATEST_VERSION


@pytest.mark.parametrize(("mode", "pragma"), [(None, 1), ("NORMAL", 1), ("FULL", 2)])
async def test_synchronous_is_normal_unless_full_is_asked_for(path, mode, pragma):
    options = {} if mode is None else {"synchronous": mode}
    service = SqliteSessionService(path, **options)
    try:
        await service.create_session(app_name="a", user_id="u")
        # (a per-connection setting: read it on the service's own writer connection)
        level = await service._write(lambda ex: ex.query("PRAGMA synchronous"))
        assert level == [(pragma,)]
    finally:
        await service.close()
    with pytest.raises(ValueError, match="Unknown synchronous mode 'SOMETIMES'"):
        SqliteSessionService(path, synchronous="SOMETIMES")  # type: ignore[arg-type]


async def test_event_is_committed_before_append_returns(service, path):
    session = await service.create_session(app_name="a", user_id="u", session_id="s")
    event = text_event("durable")
    await service.append_event(session, event)
    with sqlite3.connect(path) as other:  # another connection, as another process would
        rows = other.execute("SELECT seq, body FROM pyadk_events").fetchall()
    assert [(seq, Event.model_validate_json(body).id) for seq, body in rows] == [(1, event.id)]


async def test_append_cost_does_not_depend_on_history_length(service):
    session = await service.create_session(app_name="a", user_id="u")
    await service.append_event(session, delta_event({"k": 0}))
    seen = _statements(service)
    await service.append_event(session, delta_event({"k": 1}))
    short = list(seen)
    for i in range(300):
        await service.append_event(session, text_event(f"filler {i}"))
    seen.clear()
    await service.append_event(session, delta_event({"k": 2}))
    assert any("INSERT INTO pyadk_events" in s for s in seen)
    assert not any("FROM pyadk_events" in s for s in seen), seen  # history never read
    assert [s.split(" ")[0] for s in seen] == [s.split(" ")[0] for s in short]


async def test_list_sessions_reads_no_events_or_state(service):
    session = await service.create_session(app_name="a", user_id="u", state={"big": "x" * 10})
    await service.append_event(session, text_event("hello"))
    await service.get_session(app_name="a", user_id="u", session_id=session.id)
    seen = _statements(service)
    listed = await service.list_sessions(app_name="a", user_id="u")
    assert [s.id for s in listed.sessions] == [session.id]
    assert any("FROM pyadk_sessions" in s for s in seen)
    assert not any("pyadk_events" in s or "_state" in s for s in seen), seen


async def test_event_loop_keeps_running_while_the_database_is_locked(service, path):
    session = await service.create_session(app_name="a", user_id="u")
    blocker = sqlite3.connect(path, isolation_level=None)
    blocker.execute("BEGIN IMMEDIATE")  # another process holding the write lock
    try:
        append = asyncio.create_task(service.append_event(session, text_event("waits")))
        ticks = 0
        for _ in range(50):  # the loop is free: other coroutines run meanwhile
            await asyncio.sleep(0)
            ticks += 1
        assert ticks == 50 and not append.done()
        assert await service.get_session(app_name="a", user_id="u", session_id="nope") is None
    finally:
        blocker.execute("COMMIT")
        blocker.close()
    await asyncio.wait_for(append, 30)
    assert [
        e.text
        for e in (
            await service.get_session(app_name="a", user_id="u", session_id=session.id)
        ).events
    ] == ["waits"]


async def test_unserializable_state_is_refused_naming_the_key(service):
    session = await service.create_session(app_name="a", user_id="u", state={"k": 1})
    bad = Event(author="agent", actions=EventActions(state_delta={"k": 2, "client": object()}))
    with pytest.raises(TypeError, match="State key 'client' holds a object"):
        await service.append_event(session, bad)
    assert (session.events, session.state) == ([], {"k": 1})
    stored = await service.get_session(app_name="a", user_id="u", session_id=session.id)
    assert (stored.events, stored.state) == ([], {"k": 1})
    with pytest.raises(TypeError, match="'user:fn'"):
        await service.create_session(app_name="a", user_id="u", state={"user:fn": print})


async def test_pydantic_values_are_stored_as_their_json(service):
    class Prefs(BaseModel):
        lang: str
        tags: set[str]

    session = await service.create_session(app_name="a", user_id="u")
    await service.append_event(session, delta_event({"prefs": Prefs(lang="fr", tags={"x"})}))
    stored = await service.get_session(app_name="a", user_id="u", session_id=session.id)
    assert stored.state == {"prefs": {"lang": "fr", "tags": ["x"]}}


async def test_duplicate_id_raises_typed_error(service):
    await service.create_session(app_name="a", user_id="u", session_id="s")
    with pytest.raises(SessionExistsError, match="'s' already exists for app 'a', user 'u'"):
        await service.create_session(app_name="a", user_id="u", session_id="s")


async def test_session_rebuilt_from_json_appends_only_when_up_to_date(service):
    session = await service.create_session(app_name="a", user_id="u")
    await service.append_event(session, text_event("one"))
    wire = Session.model_validate_json(session.model_dump_json())  # e.g. sent to a client
    await service.append_event(wire, text_event("two"))
    behind = Session.model_validate_json(session.model_dump_json())  # still at "one"
    with pytest.raises(StaleSessionError, match="not loaded from this service"):
        await service.append_event(behind, text_event("lost?"))
    stored = await service.get_session(app_name="a", user_id="u", session_id=session.id)
    assert [e.text for e in stored.events] == ["one", "two"]


async def test_closed_service_refuses_calls(path):
    svc = SqliteSessionService(path)
    await svc.create_session(app_name="a", user_id="u")
    await svc.close()
    await svc.close()  # idempotent
    with pytest.raises(RuntimeError, match="is closed"):
        await svc.list_sessions(app_name="a", user_id="u")


async def test_conversation_continues_after_a_restart(path):
    first_model = ScriptedModel(["Nice to meet you, Ada."])
    svc = SqliteSessionService(path)
    session = await svc.create_session(app_name="app", user_id="u", session_id="s")
    runner = Runner(
        app_name="app", agent=LlmAgent(name="bot", model=first_model), session_service=svc
    )
    hello = types.Content(role="user", parts=[types.Part(text="I am Ada")])
    _ = [e async for e in runner.run_async(user_id="u", session_id=session.id, new_message=hello)]
    await svc.close()

    second_model = ScriptedModel(["Your name is Ada."])
    restarted = SqliteSessionService(path)  # a new process would do the same
    runner = Runner(
        app_name="app", agent=LlmAgent(name="bot", model=second_model), session_service=restarted
    )
    ask = types.Content(role="user", parts=[types.Part(text="Who am I?")])
    events = [e async for e in runner.run_async(user_id="u", session_id="s", new_message=ask)]
    assert events[-1].text == "Your name is Ada."
    seen = [(c.role, c.parts[0].text) for c in second_model.requests[0].contents]
    assert seen == [
        ("user", "I am Ada"),
        ("model", "Nice to meet you, Ada."),
        ("user", "Who am I?"),
    ]
    await restarted.close()
