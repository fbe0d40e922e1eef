"""The session conformance suite against DatabaseSessionService on a real PostgreSQL."""

from __future__ import annotations

import pytest

from pyadk.sessions import DatabaseSessionService
from pyadk.testing.session_conformance import SessionServiceConformance


class TestPostgresConformance(SessionServiceConformance):
    @pytest.fixture(autouse=True)
    def _server(self, postgres_url: str) -> None:
        self.url = postgres_url

    async def make_service(self) -> DatabaseSessionService:
        return DatabaseSessionService(self.url)

    def service_uri(self) -> str:
        return self.url


class TestPsycopgConformance(SessionServiceConformance):
    """The same server through psycopg 3 (``postgresql+psycopg://``), where installed."""

    @pytest.fixture(autouse=True)
    def _server(self, postgres_url: str) -> None:
        pytest.importorskip("psycopg", reason="psycopg 3 is not installed")
        self.url = postgres_url.replace("postgresql://", "postgresql+psycopg://", 1)
        assert self.url.startswith("postgresql+psycopg://")

    async def make_service(self) -> DatabaseSessionService:
        return DatabaseSessionService(self.url)

    def service_uri(self) -> str:
        return self.url
