"""A writer killed (SIGKILL) inside its transaction leaves nothing half-written or locked."""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from pyadk.sessions import DatabaseSessionService, SqliteSessionService
from pyadk.sessions._sql_service import SqlSessionService
from pyadk.testing.session_conformance import delta_event, text_event

# Appends one event, but stops for good right after the INSERT, before COMMIT.
CHILD = """
import asyncio, sys, time
from pyadk.sessions import _sql_store, session_service_from_uri
from pyadk.events import Event, EventActions

original = _sql_store.append_event

def append_then_hang(*args, **kwargs):
    _, seq = original(*args, **kwargs)
    print("inside", seq, flush=True)
    time.sleep(3600)

_sql_store.append_event = append_then_hang

async def main(uri):
    service = session_service_from_uri(uri)
    session = await service.get_session(app_name="app", user_id="u", session_id="s")
    event = Event(author="doomed", actions=EventActions(state_delta={"k": "doomed"}))
    await service.append_event(session, event)

asyncio.run(main(sys.argv[1]))
"""


async def _kill_mid_transaction(uri: str) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-c", CHILD, uri], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    try:
        assert proc.stdout is not None
        line = await asyncio.to_thread(proc.stdout.readline)
        assert line.split() == [b"inside", b"2"], line or proc.stderr.read()
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.kill()
        proc.wait()
    assert proc.returncode == -signal.SIGKILL


async def _check_recovered(service: SqlSessionService) -> None:
    got = await service.get_session(app_name="app", user_id="u", session_id="s")
    assert got is not None
    assert [e.author for e in got.events] == ["agent"]  # the doomed event is not there
    assert got.state == {"k": "committed"}
    await asyncio.wait_for(service.append_event(got, text_event("next")), 60)  # not locked
    again = await service.get_session(app_name="app", user_id="u", session_id="s")
    assert [e.text for e in again.events][-1] == "next" and len(again.events) == 2


async def _prepare(service: SqlSessionService) -> None:
    session = await service.create_session(app_name="app", user_id="u", session_id="s")
    await service.append_event(session, delta_event({"k": "committed"}))


async def test_sqlite_writer_killed_before_commit(tmp_path: Path):
    path = tmp_path / "crash.db"
    service = SqliteSessionService(path)
    try:
        await _prepare(service)
        await _kill_mid_transaction(f"sqlite:///{path}")
        await _check_recovered(service)
    finally:
        await service.close()
    reopened = SqliteSessionService(path)  # a restarted process sees the same
    try:
        got = await reopened.get_session(app_name="app", user_id="u", session_id="s")
        assert [e.text for e in got.events] == [None, "next"]
    finally:
        await reopened.close()


async def test_postgres_writer_killed_before_commit(postgres_url: str):
    pytest.importorskip("asyncpg")
    service = DatabaseSessionService(postgres_url)
    try:
        await service.delete_session(app_name="app", user_id="u", session_id="s")
        await _prepare(service)
        await _kill_mid_transaction(postgres_url)
        await _check_recovered(service)
    finally:
        await service.close()
