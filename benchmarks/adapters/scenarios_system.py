"""Scenarios g-j: SQLite sessions, memory, SSE streaming and import cost (see bench_common)."""

from __future__ import annotations

import asyncio
import gc
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from typing import Any

from bench_common import (
    ANSWER,
    APP,
    USER,
    CheckFailed,
    Side,
    Skip,
    Streamed,
    answering_agent,
    check,
    new_session,
    now,
    rss_bytes,
    run_turn,
    runner_for,
    said,
    stored,
    text_of,
)


def _db_dir() -> str:
    chosen = os.environ.get("BENCH_DB_DIR")
    if chosen:
        return chosen
    shm = "/dev/shm"  # a tmpfs on Linux: measures the framework, not the disk
    return shm if os.path.isdir(shm) and os.access(shm, os.W_OK) else tempfile.gettempdir()


async def _close(service: Any) -> None:
    close = getattr(service, "close", None)
    if close is not None:
        result = close()
        if asyncio.iscoroutine(result):
            await result


async def _sqlite_backend(
    side: Side, backend: str, factory: Callable[[str], Any], new_turns: int, same_turns: int
) -> dict[str, float]:
    directory = tempfile.mkdtemp(prefix="pyadk-bench-", dir=_db_dir())
    path = os.path.join(directory, f"{side.name}-{backend}.db")
    try:
        agent, script = answering_agent(side)
        service = factory(path)
        runner, _ = runner_for(side, agent, service)
        warm = await new_session(service)
        for _ in range(3):
            await run_turn(side, runner, warm.id, "Warm up.")
        gc.collect()
        t0 = now()
        for _ in range(new_turns):
            fresh = await new_session(service)
            events = await run_turn(side, runner, fresh.id, "What is the answer?")
        new_rate = new_turns / (now() - t0)
        check(text_of(said(events)[-1]) == ANSWER, "wrong answer")
        same = await new_session(service)
        t0 = now()
        for _ in range(same_turns):
            events = await run_turn(side, runner, same.id, "What is the answer?")
        same_rate = same_turns / (now() - t0)
        check(text_of(said(events)[-1]) == ANSWER, "wrong answer")
        check(
            script.last is not None and script.last.n_contents == 2 * same_turns - 1,
            "the model did not see the stored history",
        )
        await _close(service)
        reopened = factory(path)  # a new service on the same file: what was persisted?
        try:
            saved = said((await stored(reopened, same.id)).events)
            check(
                len(saved) == 2 * same_turns,
                f"{len(saved)} events persisted, expected {2 * same_turns}",
            )
            check(text_of(saved[-1]) == ANSWER, "last persisted event is not the answer")
            first = said((await stored(reopened, fresh.id)).events)
            check(len(first) == 2, f"new session persisted {len(first)} events")
        finally:
            await _close(reopened)
        return {"new_turns_per_s": new_rate, "same_turns_per_s": same_rate}
    finally:
        shutil.rmtree(directory, ignore_errors=True)


async def scenario_g(side: Side, new_turns: int = 100, same_turns: int = 50) -> dict[str, Any]:
    """g. Persistent sessions on SQLite: turns/s in new sessions and in one session.

    Runs every SQLite backend the side has; the headline metrics are the best backend's.
    """
    if not side.sqlite_backends:
        raise Skip(side.sqlite_skip_reason or f"{side.name} has no SQLite session service")
    metrics: dict[str, float] = {}
    for backend, factory in side.sqlite_backends.items():
        for key, value in (
            await _sqlite_backend(side, backend, factory, new_turns, same_turns)
        ).items():
            metrics[f"{key}.{backend}"] = value
    for key in ("new_turns_per_s", "same_turns_per_s"):
        metrics[key] = max(v for k, v in metrics.items() if k.startswith(key + "."))
    return {
        "metrics": metrics,
        "notes": f"SQLite file in {_db_dir()}; backends: {', '.join(side.sqlite_backends)}",
        "check": {"ok": True, "detail": "answers correct; events persisted and reloaded"},
    }


async def scenario_h(
    side: Side, sessions: int = 1000, turns_per_session: int = 10, warmup: int = 50
) -> dict[str, Any]:
    """h. Memory: RSS growth after sessions x turns_per_session turns (sessions kept)."""
    agent, script = answering_agent(side)
    runner, service = runner_for(side, agent)
    scratch = await new_session(service)
    for _ in range(warmup):
        await run_turn(side, runner, scratch.id, "Warm up.")
    await service.delete_session(app_name=APP, user_id=USER, session_id=scratch.id)
    made = [await new_session(service) for _ in range(sessions)]
    gc.collect()
    before = rss_bytes()
    for _ in range(turns_per_session):
        for s in made:
            events = await run_turn(side, runner, s.id, "What is the answer?")
    gc.collect()
    after = rss_bytes()
    turns = sessions * turns_per_session
    check(text_of(said(events)[-1]) == ANSWER, "wrong answer")
    check(script.calls == turns + warmup, f"model called {script.calls}x for {turns + warmup}")
    for s in made[:: max(1, sessions // 20)]:
        saved = said((await stored(service, s.id)).events)
        check(
            len(saved) == 2 * turns_per_session,
            f"session kept {len(saved)} events with content, not {2 * turns_per_session}",
        )
    listed = await service.list_sessions(app_name=APP, user_id=USER)
    check(len(listed.sessions) == sessions, f"{len(listed.sessions)} sessions listed")
    return {
        "metrics": {
            "bytes_per_turn": (after - before) / turns,
            "rss_growth_mib": (after - before) / 2**20,
        },
        "check": {"ok": True, "detail": f"{turns} turns in {sessions} sessions kept"},
    }


async def scenario_i(side: Side, turns: int = 30, chunks: int = 200, warmup: int = 3) -> dict:
    """i. SSE streaming, ``chunks`` chunks per answer: overhead per chunk.

    Overhead per chunk = (streamed turn - the same answer unstreamed) / chunks.
    """
    words = tuple(f"w{i} " for i in range(chunks))
    full = "".join(words)
    model = side.model(lambda info: Streamed(words))
    agent = side.LlmAgent(name="streamer", model=model, instruction="Stream your answer.")
    runner, service = runner_for(side, agent)
    sse = side.RunConfig(streaming_mode=side.StreamingMode.SSE)

    async def one(config: Any) -> tuple[float, Any, list[Any]]:
        session = await new_session(service)
        t0 = now()
        events = await run_turn(side, runner, session.id, "Stream it.", config)
        return now() - t0, session, events

    for _ in range(warmup):
        await one(sse)
        await one(None)
    gc.collect()
    streamed, plain = [], []
    for _ in range(turns):  # interleaved so drift hits both alike
        t, session, events = await one(sse)
        streamed.append(t)
        t, _, plain_events = await one(None)
        plain.append(t)
    events = said(events)
    plain_events = said(plain_events)
    partial = [e for e in events if e.partial]
    check(len(partial) == chunks, f"{len(partial)} partial events, expected {chunks}")
    check([text_of(e) for e in partial] == list(words), "partial chunks out of order")
    final = events[-1]
    check(not final.partial and text_of(final) == full, "no final aggregated event")
    check(len(events) == chunks + 1, f"{len(events)} events for {chunks} chunks + final")
    check(len(plain_events) == 1 and text_of(plain_events[0]) == full, "unstreamed answer")
    saved = said((await stored(service, session.id)).events)
    check(len(saved) == 2, f"stored {len(saved)} events with content: partials persisted?")
    mean_s, mean_p = statistics.fmean(streamed), statistics.fmean(plain)
    return {
        "metrics": {
            "us_per_chunk": (mean_s - mean_p) / chunks * 1e6,
            "us_per_streamed_turn": mean_s * 1e6,
            "us_per_plain_turn": mean_p * 1e6,
        },
        "check": {"ok": True, "detail": f"{chunks} partial events then one final, not stored"},
    }


_IMPORT_PROBE = """
import json, os, time
def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
r0 = rss(); t0 = time.perf_counter()
{snippet}
t1 = time.perf_counter(); r1 = rss()
print(json.dumps({{"import_s": t1 - t0, "rss": r1, "rss_before": r0,
                  "names": [LlmAgent.__name__, InMemoryRunner.__name__]}}))
"""


async def scenario_j(side: Side, processes: int = 7, min_seconds: float = 0.0) -> dict[str, Any]:
    """j. Import in a fresh process: time and RSS of importing LlmAgent and InMemoryRunner.

    At least ``processes`` processes, and more until ``min_seconds`` have passed: both
    sides then sample the machine for as long (the faster side's repeat would otherwise
    be a few short processes that a passing load on a shared host moves together)."""
    code = _IMPORT_PROBE.format(snippet=side.import_snippet)
    # Measured as installed: with bytecode caches. pip writes them for site-packages; an
    # editable checkout gets them from the warm-up process, even where the environment
    # says PYTHONDONTWRITEBYTECODE (which would make every run recompile the sources).
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    runs: list[dict[str, Any]] = []
    started = now()
    i = 0
    # The first process warms the OS file cache; dropped.
    while i <= processes or now() - started < min_seconds:
        i += 1
        t0 = now()
        out = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=False, env=env
        )
        wall = now() - t0
        if out.returncode != 0:
            raise CheckFailed(f"import failed: {out.stderr.strip()[-500:]}")
        data = json.loads(out.stdout.strip().splitlines()[-1])
        check(data["names"] == ["LlmAgent", "InMemoryRunner"], f"imported {data['names']}")
        if i > 1:
            runs.append({**data, "wall": wall})
    med = statistics.median
    return {
        "metrics": {
            "import_ms": med(r["import_s"] for r in runs) * 1e3,
            "rss_mib": med(r["rss"] for r in runs) / 2**20,
            "rss_import_mib": med(r["rss"] - r["rss_before"] for r in runs) / 2**20,
            "process_ms": med(r["wall"] for r in runs) * 1e3,
        },
        "check": {"ok": True, "detail": f"{len(runs)} fresh processes imported both names"},
    }


SCENARIOS: dict[str, Callable[..., Any]] = {
    "g": scenario_g,
    "h": scenario_h,
    "i": scenario_i,
    "j": scenario_j,
}
