"""``--artifact-uri``: artifact_service_from_uri, `pyadk run` and the API server."""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from pyadk import types
from pyadk.artifacts import (
    FileArtifactService,
    InMemoryArtifactService,
    SqlArtifactService,
    artifact_service_from_uri,
)
from pyadk.cli.errors import CliError
from pyadk.cli.services import artifact_service_for
from pyadk.sessions import SqliteSessionService
from pyadk.sessions.uri import session_service_from_uri
from pyadk.testing.cli_server import cli_server

IDS = {"app_name": "app", "user_id": "ada", "session_id": "s1"}
CSV = types.Part(inline_data=types.Blob(mime_type="text/csv", data=b"a,b\n1,2\n"))
needs_server = pytest.mark.skipif(
    any(importlib.util.find_spec(m) is None for m in ("fastapi", "uvicorn", "httpx")),
    reason="the server extra is not installed",
)

REPORTER = """
from pyadk import types
from pyadk.agents import LlmAgent
from pyadk.testing import FunctionModel, function_call


async def write_report(text: str, tool_context) -> dict:
    \"\"\"Saves the report as report.txt.\"\"\"
    part = types.Part(inline_data=types.Blob(mime_type="text/plain", data=text.encode()))
    return {"version": await tool_context.save_artifact("report.txt", part)}


def reply(request):
    last = request.contents[-1]
    if any(p.function_response for p in last.parts or []):
        return "Saved."
    return function_call("write_report", {"text": "report for " + (last.text or "")})


root_agent = LlmAgent(name="reporter", model=FunctionModel(reply), tools=[write_report])
"""


async def _round_trip(service) -> bytes:
    version = await service.save_artifact(**IDS, filename="data.csv", artifact=CSV)
    loaded = await service.load_artifact(**IDS, filename="data.csv", version=version)
    return loaded.inline_data.data


async def _keys_in(uri: str, ids: dict[str, str] = IDS) -> list[str]:
    """The artifact names a fresh SqlArtifactService finds in ``uri``'s database."""
    fresh = SqlArtifactService(uri)
    try:
        return await fresh.list_artifact_keys(**ids)
    finally:
        await fresh.close()


# --- artifact_service_from_uri -------------------------------------------------------


async def test_memory_uri_is_an_in_memory_service():
    service = artifact_service_from_uri("memory://")
    assert isinstance(service, InMemoryArtifactService)
    assert await _round_trip(service) == b"a,b\n1,2\n"


async def test_absolute_file_uri_stores_under_that_directory(tmp_path: Path):
    service = artifact_service_from_uri(f"file://{tmp_path / 'store'}")
    assert isinstance(service, FileArtifactService)
    assert service.root == tmp_path / "store"
    assert await _round_trip(service) == b"a,b\n1,2\n"
    assert (tmp_path / "store/app/ada/sessions/s1/data.csv/0/data").read_bytes() == b"a,b\n1,2\n"


async def test_relative_file_uri_is_read_from_the_current_directory(tmp_path: Path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    service = artifact_service_from_uri("file://rel/store")
    assert isinstance(service, FileArtifactService)
    assert await _round_trip(service) == b"a,b\n1,2\n"
    assert (tmp_path / "rel/store/app/ada/sessions/s1/data.csv/0/data").is_file()


@pytest.mark.parametrize("uri", ["file://", "file://  "])
def test_file_uri_without_a_path_is_refused(uri: str):
    with pytest.raises(ValueError, match="names no directory"):
        artifact_service_from_uri(uri)


async def test_sqlite_uri_opens_its_own_database(tmp_path: Path):
    uri = f"sqlite:///{tmp_path / 'artifacts.db'}"
    service = artifact_service_from_uri(uri)
    assert isinstance(service, SqlArtifactService)
    try:
        assert await _round_trip(service) == b"a,b\n1,2\n"
    finally:
        await service.close()
    assert await _keys_in(uri) == ["data.csv"]


async def test_same_sqlite_uri_shares_the_session_service(tmp_path: Path):
    uri = f"sqlite:///{tmp_path / 'app.db'}"
    sessions = session_service_from_uri(uri)
    artifacts = artifact_service_from_uri(uri, session_service=sessions)
    assert isinstance(artifacts, SqlArtifactService)
    assert await _round_trip(artifacts) == b"a,b\n1,2\n"
    await artifacts.close()  # the shared session service is not the artifacts' to close
    assert await sessions.create_session(**IDS) is not None
    await sessions.close()  # ... and closing it ends the artifacts' connection too
    with pytest.raises(RuntimeError, match="is closed"):
        await artifacts.list_artifact_keys(**IDS)


async def test_relative_sqlite_uri_shares_a_service_opened_on_that_path(
    tmp_path: Path, monkeypatch
):
    monkeypatch.chdir(tmp_path)
    sessions = SqliteSessionService("app.db")
    artifacts = artifact_service_from_uri("sqlite:///app.db", session_service=sessions)
    assert await _round_trip(artifacts) == b"a,b\n1,2\n"
    await sessions.close()
    with pytest.raises(RuntimeError, match="is closed"):
        await artifacts.load_artifact(**IDS, filename="data.csv")


async def test_another_database_uri_opens_its_own_connection(tmp_path: Path):
    sessions = session_service_from_uri(f"sqlite:///{tmp_path / 'sessions.db'}")
    artifacts = artifact_service_from_uri(
        f"sqlite:///{tmp_path / 'artifacts.db'}", session_service=sessions
    )
    await sessions.close()
    try:
        assert await _round_trip(artifacts) == b"a,b\n1,2\n"  # not closed with the sessions
    finally:
        await artifacts.close()
    assert (tmp_path / "artifacts.db").is_file()


async def test_same_sqlalchemy_uri_shares_the_database_session_service(tmp_path: Path):
    pytest.importorskip("sqlalchemy")
    pytest.importorskip("aiosqlite")
    uri = f"sqlite+aiosqlite:///{tmp_path / 'app.db'}"
    sessions = session_service_from_uri(uri)
    artifacts = artifact_service_from_uri(uri, session_service=sessions)
    assert isinstance(artifacts, SqlArtifactService)
    assert await _round_trip(artifacts) == b"a,b\n1,2\n"
    await artifacts.close()
    assert await sessions.create_session(**IDS) is not None  # still open
    await sessions.close()
    assert await _keys_in(uri) == ["data.csv"]


def test_postgresql_uri_is_a_sql_artifact_service_without_connecting():
    pytest.importorskip("sqlalchemy")
    for uri in ("postgresql://ada@127.0.0.1:1/app", "postgres://ada@127.0.0.1:1/app"):
        service = artifact_service_from_uri(uri)
        assert isinstance(service, SqlArtifactService)
        assert "postgresql+asyncpg://ada@127.0.0.1:1/app" in repr(service)


@pytest.mark.parametrize(
    ("uri", "message"),
    [
        ("gs://bucket", "Google Cloud Storage \\(gs://\\) is not available"),
        ("s3://bucket/key", "Unknown artifact service URI scheme 's3'"),
        ("artifacts", "Not an artifact service URI"),
        ("sqlite://relative.db", "Invalid SQLite URI"),
    ],
)
def test_unusable_uris_are_refused_with_the_accepted_forms(uri: str, message: str):
    with pytest.raises(ValueError, match=message) as raised:
        artifact_service_from_uri(uri)
    if "Invalid SQLite" not in message:
        for form in ("memory://", "file:///absolute/dir", "sqlite:///", "postgresql://"):
            assert form in str(raised.value)


# --- the CLI helper and `pyadk run` --------------------------------------------------


async def test_cli_helper_defaults_to_memory_and_names_the_option_in_errors():
    sessions = session_service_from_uri("memory://")
    assert isinstance(artifact_service_for(None, sessions), InMemoryArtifactService)
    with pytest.raises(CliError, match=r"^--artifact-uri: .*'gs://bucket'"):
        artifact_service_for("gs://bucket", sessions)


def _replay(tmp_path: Path, *queries: str) -> str:
    path = tmp_path / "replay.json"
    path.write_text(json.dumps({"state": {}, "queries": list(queries)}))
    return str(path)


async def test_run_saves_tool_artifacts_in_the_file_store(run_cli, write_agent, tmp_path: Path):
    write_agent("reporter", REPORTER)
    result = run_cli(
        "run", "reporter", "--replay", _replay(tmp_path, "q1", "q2"),
        "--session-id", "s1", "--artifact-uri", "file://store",  # relative to the cwd
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    store = FileArtifactService(tmp_path / "store")
    ids = {"app_name": "reporter", "user_id": "test_user", "session_id": "s1"}
    assert await store.list_versions(**ids, filename="report.txt") == [0, 1]
    latest = await store.load_artifact(**ids, filename="report.txt")
    assert latest.inline_data.data == b"report for q2"


async def test_run_keeps_artifacts_in_the_session_database(run_cli, write_agent, tmp_path):
    write_agent("reporter", REPORTER)
    uri = f"sqlite:///{tmp_path / 'app.db'}"
    result = run_cli(
        "run", "reporter", "--replay", _replay(tmp_path, "q1"), "--session-id", "s1",
        "--session_service_uri", uri, "--artifact_service_uri", uri,  # ADK spellings
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    ids = {"app_name": "reporter", "user_id": "test_user", "session_id": "s1"}
    sessions = SqliteSessionService(tmp_path / "app.db")
    artifacts = SqlArtifactService(sessions)
    try:
        loaded = await artifacts.load_artifact(**ids, filename="report.txt")
        assert loaded.inline_data.data == b"report for q1"
        session = await sessions.get_session(**ids)
        deltas = [e.actions.artifact_delta for e in session.events if e.actions.artifact_delta]
        assert deltas == [{"report.txt": 0}]
    finally:
        await sessions.close()


@pytest.mark.parametrize("command", ["run", "api_server"])
def test_bad_artifact_uri_is_a_clear_error(run_cli, write_agent, command: str):
    write_agent("reporter", REPORTER)
    target = "reporter" if command == "run" else "."
    result = run_cli(command, target, "--artifact-uri", "gs://bucket", input="hello\n")
    assert result.returncode == 1
    assert "--artifact-uri" in result.stderr and "gs://bucket" in result.stderr
    assert "not available" in result.stderr
    assert "Traceback" not in result.stderr


# --- the API server ------------------------------------------------------------------


@contextmanager
def _api_server(cwd: Path, env: dict[str, str], *args: str) -> Iterator[str]:
    with cli_server("api_server", ".", *args, cwd=cwd, env=env) as server:
        yield server.url


def _run_body(text: str) -> dict:
    return {
        "appName": "reporter",
        "userId": "ada",
        "sessionId": "s1",
        "newMessage": {"role": "user", "parts": [{"text": text}]},
    }


@needs_server
async def test_api_server_artifacts_live_in_the_sqlite_file(write_agent, make_env, tmp_path):
    import httpx

    write_agent("reporter", REPORTER)
    uri = f"sqlite:///{tmp_path / 'artifacts.db'}"
    base = "/apps/reporter/users/ada/sessions/s1"
    with _api_server(tmp_path, make_env(), "--artifact-uri", uri) as url:
        assert httpx.post(url + base, json={}, timeout=10).status_code == 200
        ran = httpx.post(url + "/run", json=_run_body("q1"), timeout=30)
        assert ran.status_code == 200, ran.text
        assert httpx.get(url + base + "/artifacts", timeout=10).json() == ["report.txt"]
        part = httpx.get(url + base + "/artifacts/report.txt", timeout=10).json()
        assert part["inlineData"]["mimeType"] == "text/plain"
    fresh = SqlArtifactService(uri)
    try:
        ids = {"app_name": "reporter", "user_id": "ada", "session_id": "s1"}
        loaded = await fresh.load_artifact(**ids, filename="report.txt")
        assert loaded.inline_data.data == b"report for q1"
        # ... and the server reads what another process saved in that file
        await fresh.save_artifact(**ids, filename="notes.txt", artifact=types.Part(text="hi"))
    finally:
        await fresh.close()
    with _api_server(tmp_path, make_env(), "--artifact_service_uri", uri) as url:
        notes = httpx.get(url + base + "/artifacts/notes.txt", timeout=10)
        assert notes.status_code == 200 and notes.json() == {"text": "hi"}
        deleted = httpx.delete(url + base + "/artifacts/report.txt", timeout=10)
        assert deleted.status_code == 200
    assert await _keys_in(uri, ids) == ["notes.txt"]


@needs_server
async def test_build_app_shares_one_database_and_closes_it_on_shutdown(write_agent, tmp_path):
    import httpx

    from pyadk.cli.serve_cmd import ServeOptions, build_app

    write_agent("reporter", REPORTER)
    uri = f"sqlite:///{tmp_path / 'app.db'}"
    options = ServeOptions(agents_dir=str(tmp_path), session_uri=uri, artifact_uri=uri)
    app = build_app(options)
    ctx = app.state.pyadk
    base = "/apps/reporter/users/ada/sessions/s1"
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
            assert (await client.post(base, json={})).status_code == 200
            assert (await client.post("/run", json=_run_body("q1"))).status_code == 200
            assert (await client.get(base + "/artifacts/report.txt/versions")).json() == [0]
    with pytest.raises(RuntimeError, match="is closed"):  # both closed at shutdown
        await ctx.session_service.get_session(**IDS)
    with pytest.raises(RuntimeError, match="is closed"):
        await ctx.artifact_service.list_artifact_keys(**IDS)
    ids = {"app_name": "reporter", "user_id": "ada", "session_id": "s1"}
    assert await _keys_in(uri, ids) == ["report.txt"]
