"""The session conformance suite against SqliteSessionService (and over SQLAlchemy)."""

from __future__ import annotations

from pathlib import Path

import pytest

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
