"""The session conformance suite against SqliteSessionService (and over SQLAlchemy)."""

from __future__ import annotations

from pathlib import Path

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


async def test_aiosqlite_first_connection_waits_for_another_switching_the_new_file_to_wal(
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
    first = statements.index("PRAGMA busy_timeout=30000")
    assert statements[first : first + 3] == [statements[first]] + ["PRAGMA journal_mode=WAL"] * 2


async def test_aiosqlite_busy_timeout_follows_the_connect_timeout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    path = tmp_path / "sessions.db"
    # (the lock only to trace the statements: it is let go at the first one)
    holder, statements = hold_write_lock(path, monkeypatch, lambda done: True)
    service = DatabaseSessionService(f"sqlite+aiosqlite:///{path}", connect_args={"timeout": 2.5})
    try:
        await service.create_session(app_name="app", user_id="u")
    finally:
        await service.close()
        holder.close()
    assert "PRAGMA busy_timeout=2500" in statements
    assert "PRAGMA busy_timeout=30000" not in statements
