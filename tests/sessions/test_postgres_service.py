"""DatabaseSessionService on a real PostgreSQL: locking, loops, URLs, typed errors."""

from __future__ import annotations

import asyncio

import pytest

from pyadk.events import Event, EventActions
from pyadk.sessions import (
    DatabaseSessionService,
    SessionExistsError,
    StaleSessionError,
    session_service_from_uri,
)
from pyadk.sessions.database_session_service import async_url
from pyadk.testing.session_conformance import text_event

pytest.importorskip("asyncpg")


@pytest.fixture
async def service(postgres_url: str):
    svc = DatabaseSessionService(postgres_url)
    yield svc
    await svc.close()


async def _lock_session_row(postgres_url: str, session_id: str):
    """A raw connection holding the session row's lock in an open transaction."""
    import asyncpg

    conn = await asyncpg.connect(postgres_url)
    transaction = conn.transaction()
    await transaction.start()
    await conn.execute("SELECT 1 FROM pyadk_sessions WHERE id = $1 FOR UPDATE", session_id)
    return conn, transaction


async def test_a_busy_session_never_holds_up_another(service, postgres_url):
    busy = await service.create_session(app_name="lock", user_id="u", session_id="busy-1")
    free = await service.create_session(app_name="lock", user_id="u", session_id="free-1")
    conn, transaction = await _lock_session_row(postgres_url, "busy-1")
    try:
        waiting = asyncio.create_task(service.append_event(busy, text_event("waits")))
        await asyncio.wait_for(service.append_event(free, text_event("goes")), 30)
        assert not waiting.done()  # still waiting for the row lock
    finally:
        await transaction.rollback()
        await conn.close()
    await asyncio.wait_for(waiting, 30)
    got = await service.get_session(app_name="lock", user_id="u", session_id="busy-1")
    assert [e.text for e in got.events] == ["waits"]


async def test_two_machines_racing_on_one_session_commit_exactly_one(postgres_url):
    machines = [DatabaseSessionService(postgres_url) for _ in range(2)]
    try:
        session = await machines[0].create_session(app_name="race", user_id="u")
        for attempt in range(5):
            views = [
                await m.get_session(app_name="race", user_id="u", session_id=session.id)
                for m in machines
            ]
            results = await asyncio.gather(
                *(
                    m.append_event(v, text_event(f"{attempt}:{i}"))
                    for i, (m, v) in enumerate(zip(machines, views, strict=True))
                ),
                return_exceptions=True,
            )
            refused = [r for r in results if isinstance(r, StaleSessionError)]
            assert len(refused) == 1, results
        got = await machines[1].get_session(app_name="race", user_id="u", session_id=session.id)
        assert [e.text.split(":")[0] for e in got.events] == ["0", "1", "2", "3", "4"]
    finally:
        for m in machines:
            await m.close()


async def test_unserializable_state_is_refused_and_nothing_written(service):
    session = await service.create_session(app_name="json", user_id="u", state={"k": 1})
    bad = Event(author="a", actions=EventActions(state_delta={"app:handle": object()}))
    with pytest.raises(TypeError, match="State key 'app:handle'"):
        await service.append_event(session, bad)
    got = await service.get_session(app_name="json", user_id="u", session_id=session.id)
    assert (got.events, got.state) == ([], {"k": 1})


async def test_duplicate_id_raises_typed_error(service):
    await service.create_session(app_name="dup", user_id="u", session_id="s")
    with pytest.raises(SessionExistsError, match="'s' already exists"):
        await service.create_session(app_name="dup", user_id="u", session_id="s")


def test_usable_from_several_event_loops(postgres_url):
    """Runner.run (sync) runs each call in a new event loop; the service follows."""
    svc = DatabaseSessionService(postgres_url)
    created = asyncio.run(svc.create_session(app_name="loops", user_id="u"))
    asyncio.run(svc.append_event(created, text_event("from loop 2")))

    async def read_and_close():
        got = await svc.get_session(app_name="loops", user_id="u", session_id=created.id)
        await svc.close()
        return got

    assert [e.text for e in asyncio.run(read_and_close()).events] == ["from loop 2"]


def test_url_forms():
    assert async_url("postgresql://u@h/db") == "postgresql+asyncpg://u@h/db"
    assert async_url("postgres://u@h/db") == "postgresql+asyncpg://u@h/db"
    assert async_url("postgresql+psycopg://u@h/db") == "postgresql+psycopg://u@h/db"
    assert async_url("sqlite:///x.db") == "sqlite+aiosqlite:///x.db"
    with pytest.raises(ValueError, match="Not a database URL"):
        async_url("nonsense")
    with pytest.raises(ValueError, match="not 'mysql'"):
        DatabaseSessionService("mysql://u@h/db")
    svc = session_service_from_uri("postgresql://user:secret@db.example:5432/app")
    assert isinstance(svc, DatabaseSessionService)
    assert "secret" not in repr(svc)
