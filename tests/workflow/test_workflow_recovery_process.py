"""A process killed while a graph workflow's node runs; another process resumes the
invocation from the SQLite session file."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from recovery_app import order_workflow
from wf_support import outputs

from pyadk.runners import Runner
from pyadk.sessions import SqliteSessionService

HERE = Path(__file__).parent

_CHILD = """
import asyncio, sys
from pathlib import Path
sys.path.insert(0, {tests!r})
from recovery_app import order_workflow
from pyadk import types
from pyadk.runners import Runner
from pyadk.sessions import SqliteSessionService

async def main():
    service = SqliteSessionService({db!r}, lease_ttl=0.5)
    agent = order_workflow(Path({log!r}), Path({marker!r}))
    runner = Runner(app_name="shop", agent=agent, session_service=service)
    await service.create_session(app_name="shop", user_id="ada", session_id="s1")
    async for _ in runner.run_async(
        user_id="ada", session_id="s1", new_message=types.UserContent("order 7")
    ):
        pass

asyncio.run(main())
"""


async def test_a_process_killed_mid_node_resumes_from_its_sqlite_session(tmp_path: Path):
    db, log, marker = tmp_path / "sessions.db", tmp_path / "ran.log", tmp_path / "charging"
    script = textwrap.dedent(_CHILD).format(
        tests=str(HERE), db=str(db), log=str(log), marker=str(marker)
    )
    child = subprocess.Popen([sys.executable, "-c", script], env={**os.environ})
    try:
        deadline = time.monotonic() + 60
        while not marker.exists():
            assert child.poll() is None, "the child process ended before charging"
            assert time.monotonic() < deadline, "the child never reached the charge node"
            await asyncio.sleep(0.05)
        await asyncio.sleep(0.3)  # enrich, running beside charge, finishes and is stored
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
    assert sorted(log.read_text().split()) == ["charge", "enrich", "prepare"]

    service = SqliteSessionService(db, lease_wait=10)
    runner = Runner(app_name="shop", agent=order_workflow(log), session_service=service)
    stored = await service.get_session(app_name="shop", user_id="ada", session_id="s1")
    assert stored is not None
    invocation = stored.events[-1].invocation_id
    assert sorted(name for name, _ in outputs(stored.events)) == ["enrich", "prepare"]

    resumed = [
        e async for e in runner.run_async(user_id="ada", session_id="s1", invocation_id=invocation)
    ]
    # prepare and enrich had finished: not run again; charge was cut off: runs again
    assert sorted(log.read_text().split()) == ["charge", "charge", "enrich", "prepare", "report"]
    assert outputs(resumed) == [
        ("charge", "order 7 charged"),
        ("join", {"enrich": "order 7 enriched", "charge": "order 7 charged"}),
        ("report", "order 7 enriched; order 7 charged"),
    ]
    assert {e.invocation_id for e in resumed} == {invocation}
    final = await service.get_session(app_name="shop", user_id="ada", session_id="s1")
    assert final is not None  # each node's output stored once, in order
    assert [name for name, _ in outputs(final.events)][-3:] == ["charge", "join", "report"]
    assert len(outputs(final.events)) == 5
    await service.close()
