"""SqlArtifactService: the artifact contract in the session database (SQLite, PostgreSQL)."""

from __future__ import annotations

import asyncio
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest
from sqlite_lock import hold_write_lock

from pyadk import types
from pyadk.agents.llm_agent import LlmAgent
from pyadk.artifacts import SqlArtifactService, sql_artifact_service
from pyadk.errors import ArtifactVersionConflictError
from pyadk.runners import Runner
from pyadk.sessions import DatabaseSessionService, SqliteSessionService
from pyadk.testing import ScriptedModel, function_call
from pyadk.testing.artifact_conformance import ArtifactServiceConformance
from pyadk.tools import ToolContext

IDS = {"app_name": "app", "user_id": "u", "session_id": "s"}


class TestSqliteArtifactContract(ArtifactServiceConformance):
    @pytest.fixture(autouse=True)
    def _database(self, tmp_path: Path) -> None:
        self.uri = f"sqlite:///{tmp_path / 'app.db'}"

    async def make_service(self) -> SqlArtifactService:
        return SqlArtifactService(self.uri)


class TestPostgresArtifactContract(ArtifactServiceConformance):
    @pytest.fixture(autouse=True)
    def _server(self, postgres_url: str) -> None:
        pytest.importorskip("asyncpg")
        self.url = postgres_url

    async def make_service(self) -> SqlArtifactService:
        return SqlArtifactService(DatabaseSessionService(self.url))

    @pytest.fixture
    async def service(self):  # the session service is the test's: close both
        svc = await self.make_service()
        try:
            yield svc
        finally:
            await svc.close()
            await svc._sessions.close()


async def test_sessions_and_artifacts_share_one_database_file(tmp_path: Path):
    path = tmp_path / "app.db"
    sessions = SqliteSessionService(path)
    artifacts = SqlArtifactService(sessions)

    async def save_report(content: str, tool_context: ToolContext) -> dict:
        """Saves a report."""
        part = types.Part(inline_data=types.Blob(mime_type="text/csv", data=content.encode()))
        return {"version": await tool_context.save_artifact("report.csv", part)}

    model = ScriptedModel([function_call("save_report", {"content": "a,b\n1,2\n"}), "Saved."])
    runner = Runner(
        app_name="app",
        agent=LlmAgent(name="bot", model=model, tools=[save_report]),
        session_service=sessions,
        artifact_service=artifacts,
    )
    await sessions.create_session(**IDS)
    message = types.Content(role="user", parts=[types.Part(text="save it")])
    events = [e async for e in runner.run_async(user_id="u", session_id="s", new_message=message)]
    assert events[1].actions.artifact_delta == {"report.csv": 0}
    await artifacts.close()  # the session service is the caller's: still open
    assert (await sessions.get_session(**IDS)) is not None
    await sessions.close()

    with sqlite3.connect(path) as conn:  # one file; the bytes are stored raw
        rows = conn.execute("SELECT filename, version, data FROM pyadk_artifacts").fetchall()
    assert rows == [("report.csv", 0, b"a,b\n1,2\n")]
    reopened = SqlArtifactService(f"sqlite:///{path}")
    loaded = await reopened.load_artifact(**IDS, filename="report.csv")
    await reopened.close()
    assert loaded is not None and loaded.inline_data is not None
    assert (loaded.inline_data.mime_type, loaded.inline_data.data) == ("text/csv", b"a,b\n1,2\n")


async def test_concurrent_saves_from_several_services_get_distinct_versions(tmp_path: Path):
    uri = f"sqlite:///{tmp_path / 'app.db'}"
    services = [SqlArtifactService(uri) for _ in range(4)]  # e.g. four processes
    try:
        versions = await asyncio.gather(
            *(
                services[i % 4].save_artifact(
                    **IDS, filename="log", artifact=types.Part(text=str(i))
                )
                for i in range(24)
            )
        )
        assert sorted(versions) == list(range(24))
        texts = set()
        for version in range(24):
            part = await services[0].load_artifact(**IDS, filename="log", version=version)
            texts.add(part.text if part else None)
        assert texts == {str(i) for i in range(24)}
    finally:
        for service in services:
            await service.close()


async def test_postgres_savers_racing_on_one_name_get_distinct_versions(postgres_url: str):
    pytest.importorskip("asyncpg")
    services = [SqlArtifactService(DatabaseSessionService(postgres_url)) for _ in range(3)]
    ids = {**IDS, "app_name": "race"}
    try:
        versions = await asyncio.gather(
            *(
                services[i % 3].save_artifact(**ids, filename="log", artifact=types.Part(text="x"))
                for i in range(30)
            )
        )
        assert sorted(versions) == list(range(30))
    finally:
        for service in services:
            await service._sessions.close()


def test_only_a_sql_session_service_or_uri_is_accepted():
    with pytest.raises(ValueError, match="SQLite or PostgreSQL URI"):
        SqlArtifactService("memory://")
    with pytest.raises(TypeError, match="got InMemorySessionService"):
        from pyadk.sessions import InMemorySessionService

        SqlArtifactService(InMemorySessionService())  # type: ignore[arg-type]


async def test_first_save_waits_for_another_connection_switching_the_new_file_to_wal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    # SQLite answers "database is locked" at once, busy_timeout or not, to a connection
    # switching a new file to WAL while another one (here: `holder`) has its write lock.
    path = tmp_path / "app.db"
    holder, statements = hold_write_lock(  # until the service's first statement met it
        path, monkeypatch, lambda done: len(done) == 2
    )
    sessions = SqliteSessionService(path)
    try:
        artifact = types.Part(text="x")
        version = await SqlArtifactService(sessions).save_artifact(
            **IDS, filename="log", artifact=artifact
        )
    finally:
        await sessions.close()
        holder.close()
    assert version == 0
    assert statements[:2] == ["PRAGMA journal_mode=WAL"] * 2


async def test_a_save_that_keeps_losing_the_next_version_gives_up_with_a_clear_error(
    tmp_path: Path,
):
    # Each insert of a version does nothing, as when a concurrent saver took it first
    # (PostgreSQL); the trigger counts the tries.
    path = tmp_path / "app.db"
    sessions = SqliteSessionService(path)
    service = SqlArtifactService(sessions)
    try:
        await service.save_artifact(**IDS, filename="log", artifact=types.Part(text="v0"))
        with closing(sqlite3.connect(path)) as db:
            db.executescript(
                "CREATE TABLE tries (n INTEGER);"
                "CREATE TRIGGER lose BEFORE INSERT ON pyadk_artifacts BEGIN "
                "INSERT INTO tries VALUES (1); SELECT RAISE(IGNORE); END;"
            )
        with pytest.raises(ArtifactVersionConflictError) as caught:
            await service.save_artifact(**IDS, filename="log", artifact=types.Part(text="v1"))
        assert await service.list_versions(**IDS, filename="log") == [0]
    finally:
        await sessions.close()
    with closing(sqlite3.connect(path)) as db:
        tries = db.execute("SELECT COUNT(*) FROM tries").fetchone()[0]
    assert tries == sql_artifact_service._SAVE_ATTEMPTS
    assert str(caught.value) == (
        "Could not save artifact 'log' (app 'app', user 'u', session 's'): concurrent "
        f"savers took the next version in each of {tries} attempts; nothing was saved."
    )
