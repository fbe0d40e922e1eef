"""The session conformance suite against SqliteSessionService (and over SQLAlchemy)."""

from __future__ import annotations

import asyncio
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from sqlite_lock import hold_write_lock

from pyadk.sessions import DatabaseSessionService, SqliteSessionService
from pyadk.testing.session_conformance import SessionServiceConformance


class TestSqliteConformance(SessionServiceConformance):
    @pytest.fixture(autouse=True)
    def _database(self, tmp_path: Path) -> None:
        self.path = tmp_path / "sessions.db"

    async def make_service(self) -> SqliteSessionService:
        return SqliteSessionService(self.path)

    def service_uri(self) -> str:
        return f"sqlite:///{self.path}"


class TestSqliteInMemoryDatabaseConformance(SessionServiceConformance):
    """``sqlite:///:memory:``: one private database per service object."""

    async def make_service(self) -> SqliteSessionService:
        return SqliteSessionService(":memory:")


class TestAiosqliteConformance(SessionServiceConformance):
    """DatabaseSessionService over SQLite (``sqlite+aiosqlite://``)."""

    @pytest.fixture(autouse=True)
    def _database(self, tmp_path: Path) -> None:
        self.url = f"sqlite+aiosqlite:///{tmp_path / 'sessions.db'}"

    async def make_service(self) -> DatabaseSessionService:
        return DatabaseSessionService(self.url)

    def service_uri(self) -> str:
        return self.url


def _journal_mode(path: Path) -> str:
    with closing(sqlite3.connect(path)) as conn:
        return str(conn.execute("PRAGMA journal_mode").fetchone()[0])


async def test_aiosqlite_first_use_waits_for_another_connection_switching_the_new_file_to_wal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    # SQLite answers "database is locked" at once, busy_timeout or not, to a connection
    # switching a new file to WAL while another one (here: `holder`) has its write lock.
    path = tmp_path / "sessions.db"
    holder, statements = hold_write_lock(  # until the service's first switch met it
        path, monkeypatch, lambda done: done.count("PRAGMA journal_mode=WAL") == 2
    )
    service = DatabaseSessionService(f"sqlite+aiosqlite:///{path}")
    try:
        session = await service.create_session(app_name="app", user_id="u")
        assert await service.get_session(app_name="app", user_id="u", session_id=session.id)
    finally:
        await service.close()
        holder.close()
    # The service's first statement (before its engine opens the file) met the lock,
    # and was retried until the lock was let go.
    assert statements[:2] == ["PRAGMA journal_mode=WAL"] * 2
    assert _journal_mode(path) == "wal"


async def test_aiosqlite_services_opening_one_new_file_at_once_all_succeed(tmp_path: Path):
    path = tmp_path / "sessions.db"
    services = [DatabaseSessionService(f"sqlite+aiosqlite:///{path}") for _ in range(8)]
    try:
        sessions = await asyncio.gather(
            *(s.create_session(app_name="app", user_id=f"u{i}") for i, s in enumerate(services))
        )
    finally:
        for service in services:
            await service.close()
    assert len({session.id for session in sessions}) == len(services)
    assert _journal_mode(path) == "wal"


@pytest.mark.parametrize(
    ("query", "connect_args", "busy_ms"),
    [("", None, 30000), ("", {"timeout": 2.5}, 2500), ("?timeout=4", None, 4000)],
)
async def test_aiosqlite_busy_timeout_follows_the_connect_timeout(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    query: str,
    connect_args: dict[str, float] | None,
    busy_ms: int,
):
    timeouts: list[float] = []
    connect = sqlite3.connect

    def recording_connect(*args: Any, **kwargs: Any) -> sqlite3.Connection:
        timeouts.append(kwargs["timeout"])
        return connect(*args, **kwargs)

    monkeypatch.setattr(sqlite3, "connect", recording_connect)
    kwargs: dict[str, Any] = {} if connect_args is None else {"connect_args": connect_args}
    service = DatabaseSessionService(f"sqlite+aiosqlite:///{tmp_path / 's.db'}{query}", **kwargs)
    try:
        await service.create_session(app_name="app", user_id="u")
        busy_timeout = await service._read(lambda ex: ex.query("PRAGMA busy_timeout"))
    finally:
        await service.close()
    assert busy_timeout == [(busy_ms,)]
    # the connection switching the file to WAL, then the engine's
    assert len(timeouts) >= 2 and set(timeouts) == {busy_ms / 1000}


@pytest.mark.parametrize(
    "database",
    ["", "/:memory:", "/file::memory:?cache=shared&uri=true", "/file:{path}?mode=rwc&uri=true"],
)
async def test_aiosqlite_memory_and_uri_databases(tmp_path: Path, database: str):
    path = tmp_path / "sessions.db"
    service = DatabaseSessionService("sqlite+aiosqlite://" + database.format(path=path))
    try:
        session = await service.create_session(app_name="app", user_id="u")
        assert await service.get_session(app_name="app", user_id="u", session_id=session.id)
        journal = await service._read(lambda ex: ex.query("PRAGMA journal_mode"))
    finally:
        await service.close()
    on_disk = "{path}" in database
    assert journal == [("wal",) if on_disk else ("memory",)]
    if on_disk:
        assert _journal_mode(path) == "wal"
