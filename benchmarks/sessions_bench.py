#!/usr/bin/env python3
"""Session storage benchmark: turns/s and bytes/turn for each pyadk session backend.

    python benchmarks/sessions_bench.py              # every backend (~1-2 min)
    python benchmarks/sessions_bench.py --quick      # smaller sizes
    python benchmarks/sessions_bench.py --backends sqlite,postgresql --json out.json

A "turn" stores what a Runner stores for a one-answer exchange: the user's message and
the agent's reply (two events, one with a state delta). Scenarios, per backend:

- new session: create a session, then one turn, repeated.
- reused session: turns appended to one session.
- 10,000 events: turns appended to a session that already holds 10,000 events, then
  ``get_session`` of all of it and of the last 20 events.
- runner: full ``Runner.run_async`` turns (offline model), new and reused session; and
  on the session of 10,000 events, by a new service (as after a restart): its first
  turn, then the next ones.
- concurrent: 8 tasks on 8 sessions; and 4 tasks on one session, retrying when refused.

Bytes/turn is the growth of the database on disk (tables and indexes) while the
10,000 events were written, divided by 5,000 turns. Files go to the system's temporary
directory (``--dir`` to choose): on a disk, ``sqlite-full`` pays one fsync per commit.
PostgreSQL is a throwaway server from the distribution's binaries (skipped if none),
with its default durability.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sqlite3
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

from pyadk import types
from pyadk.agents.llm_agent import LlmAgent
from pyadk.events import Event, EventActions
from pyadk.runners import Runner
from pyadk.sessions import (
    BaseSessionService,
    DatabaseSessionService,
    InMemorySessionService,
    Session,
    SqliteSessionService,
    StaleSessionError,
)
from pyadk.sessions.base_session_service import GetSessionConfig
from pyadk.testing import FunctionModel

APP, USER = "bench", "user"
BACKENDS = ("memory", "sqlite", "sqlite-full", "postgresql")


def user_event(i: int) -> Event:
    text = f"Question number {i}: what is the weather like in Paris today?"
    return Event(
        author="user", invocation_id=f"inv-{i}", content=types.Content(role="user", parts=[
            types.Part(text=text)]),
    )  # fmt: skip


def reply_event(i: int) -> Event:
    text = f"Answer {i}: it is sunny in Paris, 21 degrees, light wind from the west."
    return Event(
        author="assistant",
        invocation_id=f"inv-{i}",
        content=types.Content(role="model", parts=[types.Part(text=text)]),
        actions=EventActions(state_delta={"last_answer": i}),
    )


async def turn(service: BaseSessionService, session: Session, i: int) -> None:
    await service.append_event(session, user_event(i))
    await service.append_event(session, reply_event(i))


def rate(count: int, seconds: float) -> float:
    return round(count / seconds, 1) if seconds > 0 else float("inf")


async def timed(fn: Callable[[], Awaitable[Any]]) -> float:
    start = time.perf_counter()
    await fn()
    return time.perf_counter() - start


class Backend:
    """Makes services on one store and measures its size."""

    def __init__(self, name: str, make: Callable[[], BaseSessionService], size: Callable[[],
                 Awaitable[int | None]]) -> None:  # fmt: skip
        self.name, self.make, self.size = name, make, size


@contextmanager
def _postgres_url() -> Any:
    from pyadk.testing.postgres_server import throwaway_postgres

    with throwaway_postgres(fsync=True) as url:
        yield url


@asynccontextmanager
async def backend(name: str, workdir: Path) -> AsyncIterator[Backend | None]:
    if name == "memory":
        yield Backend(name, InMemorySessionService, _no_size)
    elif name.startswith("sqlite"):
        path = workdir / f"{name}.db"
        sync = "FULL" if name.endswith("full") else "NORMAL"  # NORMAL: the default
        yield Backend(name, lambda: SqliteSessionService(path, synchronous=sync),
                      lambda: _sqlite_size(path))  # fmt: skip
    else:
        try:
            with _postgres_url() as url:
                yield Backend(name, lambda: DatabaseSessionService(url), lambda: _pg_size(url))
        except Exception as exc:  # no binaries: report and go on
            print(f"  skipped {name}: {exc}", file=sys.stderr)
            yield None


async def _no_size() -> int | None:
    return None


async def _sqlite_size(path: Path) -> int:
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        pages = conn.execute("PRAGMA page_count").fetchone()[0]
        free = conn.execute("PRAGMA freelist_count").fetchone()[0]
        size = conn.execute("PRAGMA page_size").fetchone()[0]
    return int((pages - free) * size)


async def _pg_size(url: str) -> int:
    import asyncpg

    conn = await asyncpg.connect(url)
    try:
        await conn.execute("VACUUM")
        value = await conn.fetchval(
            "SELECT sum(pg_total_relation_size(oid)) FROM pg_class "
            "WHERE relkind = 'r' AND relname LIKE 'pyadk_%'"
        )
        return int(value)
    finally:
        await conn.close()


async def measure(b: Backend, turns: int, long_events: int) -> dict[str, Any]:
    service = b.make()
    out: dict[str, Any] = {"backend": b.name}
    await service.create_session(app_name=APP, user_id="warmup")

    async def new_sessions() -> None:
        for i in range(turns):
            session = await service.create_session(app_name=APP, user_id=USER)
            await turn(service, session, i)

    out["new_session_turns_per_s"] = rate(turns, await timed(new_sessions))

    reused = await service.create_session(app_name=APP, user_id=USER)

    async def reuse() -> None:
        for i in range(turns):
            await turn(service, reused, i)

    out["reused_session_turns_per_s"] = rate(turns, await timed(reuse))

    long = await service.create_session(app_name=APP, user_id=USER, session_id="long")
    before = await b.size()
    start = time.perf_counter()
    for i in range(long_events // 2):
        await turn(service, long, i)
    fill_seconds = time.perf_counter() - start
    after = await b.size()
    out["fill_turns_per_s"] = rate(long_events // 2, fill_seconds)
    if before is not None and after is not None:
        out["bytes_per_turn"] = round((after - before) / (long_events // 2))
    payload = sum(len(e.model_dump_json(by_alias=True, exclude_none=True)) for e in
                  (user_event(1), reply_event(1)))  # fmt: skip
    out["json_bytes_per_turn"] = payload

    async def long_turns() -> None:
        for i in range(turns):
            await turn(service, long, i)

    out[f"turns_per_s_at_{long_events}_events"] = rate(turns, await timed(long_turns))
    full = await timed(lambda: service.get_session(app_name=APP, user_id=USER, session_id="long"))
    recent = await timed(
        lambda: service.get_session(
            app_name=APP, user_id=USER, session_id="long",
            config=GetSessionConfig(num_recent_events=20),
        )
    )  # fmt: skip
    out["get_long_session_ms"] = round(full * 1000, 1)
    out["get_last_20_events_ms"] = round(recent * 1000, 2)

    out.update(await runner_turns(service, max(turns // 4, 10)))
    restarted = service if b.name == "memory" else b.make()  # memory: nothing to reopen
    out.update(await long_session_runner_turns(restarted, "long", 20))
    if restarted is not service:
        await restarted.close()
    out.update(await concurrent(service, turns))
    await service.close()
    return out


def _runner(service: BaseSessionService) -> Callable[[str], Awaitable[None]]:
    """Runs one Runner turn (offline model) on a session of ``service``."""
    model = FunctionModel(lambda request: "It is sunny.")
    runner = Runner(app_name=APP, agent=LlmAgent(name="assistant", model=model),
                    session_service=service)  # fmt: skip
    message = types.Content(role="user", parts=[types.Part(text="Weather in Paris?")])

    async def run(session_id: str) -> None:
        async for _ in runner.run_async(user_id=USER, session_id=session_id,
                                        new_message=message):  # fmt: skip
            pass

    return run


async def runner_turns(service: BaseSessionService, turns: int) -> dict[str, Any]:
    run = _runner(service)

    async def fresh() -> None:
        for _ in range(turns):
            await run((await service.create_session(app_name=APP, user_id=USER)).id)

    reused = await service.create_session(app_name=APP, user_id=USER)

    async def same() -> None:
        for _ in range(turns):
            await run(reused.id)

    return {
        "runner_new_session_turns_per_s": rate(turns, await timed(fresh)),
        "runner_reused_session_turns_per_s": rate(turns, await timed(same)),
    }


async def long_session_runner_turns(
    service: BaseSessionService, session_id: str, turns: int
) -> dict[str, Any]:
    """Runner turns on the long session by a new service (a restarted process): its
    first turn reads the whole session, the next ones only what they have not seen."""
    run = _runner(service)
    first = await timed(lambda: run(session_id))

    async def later() -> None:
        for _ in range(turns):
            await run(session_id)

    seconds = await timed(later)
    return {
        "runner_first_turn_on_long_session_ms": round(first * 1000, 1),
        "runner_turns_per_s_on_long_session": rate(turns, seconds),
    }


async def concurrent(service: BaseSessionService, turns: int) -> dict[str, Any]:
    sessions = [await service.create_session(app_name=APP, user_id=USER) for _ in range(8)]
    per_task = max(turns // 8, 1)

    async def own(session: Session) -> None:
        for i in range(per_task):
            await turn(service, session, i)

    seconds = await timed(lambda: asyncio.gather(*(own(s) for s in sessions)))
    shared = await service.create_session(app_name=APP, user_id=USER)
    conflicts = 0

    async def contend(tag: int) -> None:
        nonlocal conflicts
        mine = await service.get_session(
            app_name=APP,
            user_id=USER,
            session_id=shared.id,
            config=GetSessionConfig(num_recent_events=1),
        )
        done = 0
        while done < per_task:
            try:
                await turn(service, mine, done)  # type: ignore[arg-type]
                done += 1
            except StaleSessionError:
                conflicts += 1
                mine = await service.get_session(
                    app_name=APP, user_id=USER, session_id=shared.id,
                    config=GetSessionConfig(num_recent_events=1),
                )  # fmt: skip

    shared_seconds = await timed(lambda: asyncio.gather(*(contend(t) for t in range(4))))
    return {
        "concurrent_8_sessions_turns_per_s": rate(per_task * 8, seconds),
        "one_session_4_writers_turns_per_s": rate(per_task * 4, shared_seconds),
        "one_session_4_writers_conflicts": conflicts,
    }


def table(results: list[dict[str, Any]]) -> str:
    keys = list(dict.fromkeys(k for r in results for k in r if k != "backend"))
    lines = ["| metric | " + " | ".join(r["backend"] for r in results) + " |"]
    lines.append("|---" * (len(results) + 1) + "|")
    for key in keys:
        lines.append(f"| {key} | " + " | ".join(str(r.get(key, "")) for r in results) + " |")
    return "\n".join(lines)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--backends", default=",".join(BACKENDS))
    parser.add_argument("--quick", action="store_true", help="fewer turns, 2,000 events")
    parser.add_argument("--json", type=Path, help="also write the results here")
    parser.add_argument("--dir", type=Path, help="where the SQLite files go")
    args = parser.parse_args()
    turns, long_events = (100, 2_000) if args.quick else (400, 10_000)
    results = []
    with tempfile.TemporaryDirectory(prefix="pyadk-bench-", dir=args.dir) as tmp:
        for name in args.backends.split(","):
            print(f"measuring {name} ...", file=sys.stderr)
            async with backend(name, Path(tmp)) as b:
                if b is not None:
                    results.append(await measure(b, turns, long_events))
    print(table(results))
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    asyncio.run(main())
