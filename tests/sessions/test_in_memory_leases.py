"""InMemorySessionService leases: judged by their holder turn, with no renewal timer.

Every lease holder of an in-memory service is a turn of this process: a turn still
running keeps its lease however long its event loop is blocked; the lease of a turn
gone without releasing it (its loop stopped or closed, the turn collected) expires
``ttl`` seconds after it was last claimed, appended to or seen held.
"""

from __future__ import annotations

import asyncio
import gc
import threading
import time
from typing import Any

import pytest

from pyadk.events import Event
from pyadk.sessions import InMemorySessionService, Session, SessionBusyError, _leases
from pyadk.sessions.sqlite_session_service import SqliteSessionService

APP = "app"
TTL = 0.05


def _event(text: str) -> Event:
    return Event(author="agent", invocation_id=text)


async def _reload(service: InMemorySessionService, session: Session) -> Session:
    fresh = await service.get_session(app_name=APP, user_id="u", session_id=session.id)
    assert fresh is not None
    return fresh


async def _intrude(service: InMemorySessionService, session: Session) -> SessionBusyError | None:
    """Appends from a fresh object outside any turn: the refusal, or None if it got in."""
    other = await _reload(service, session)
    try:
        await service.append_event(other, _event("intruder"))
    except SessionBusyError as busy:
        return busy
    return None


async def test_a_turn_whose_loop_is_blocked_past_its_ttl_keeps_its_lease() -> None:
    service = InMemorySessionService()
    session = await service.create_session(app_name=APP, user_id="u")
    async with service.turn(session, invocation_id="cpu-bound", ttl=TTL):
        time.sleep(4 * TTL)  # a CPU-bound tool: nothing else runs in this loop meanwhile
        busy = await _intrude(service, session)
        assert busy is not None and busy.owner == "cpu-bound"
        assert busy.expires_at is not None and busy.expires_at > time.time()  # renewed
        with pytest.raises(SessionBusyError):
            async with service.turn(await _reload(service, session), invocation_id="other"):
                pytest.fail("a second turn started on a held session")
        await service.append_event(session, _event("mine"))  # the turn still writes
    assert await _intrude(service, session) is None  # released when it ended
    assert [e.invocation_id for e in (await _reload(service, session)).events] == [
        "mine",
        "intruder",
    ]


async def test_a_turn_blocked_in_another_threads_loop_keeps_its_lease() -> None:
    service = InMemorySessionService()
    session = await service.create_session(app_name=APP, user_id="u")
    entered, leave = threading.Event(), threading.Event()

    async def hold() -> None:
        async with service.turn(session, invocation_id="worker", ttl=TTL):
            entered.set()
            leave.wait(10)  # blocks the worker's loop (as Runner.run's thread would be)
            await service.append_event(session, _event("worker"))

    worker = threading.Thread(target=asyncio.run, args=(hold(),))
    worker.start()
    try:
        assert await asyncio.to_thread(entered.wait, 10)
        await asyncio.sleep(4 * TTL)
        busy = await _intrude(service, session)
        assert busy is not None and busy.owner == "worker"
    finally:
        leave.set()
        await asyncio.to_thread(worker.join, 10)
    assert await _intrude(service, session) is None
    assert [e.invocation_id for e in (await _reload(service, session)).events] == [
        "worker",
        "intruder",
    ]


async def test_a_finished_turn_gives_the_session_back_at_once() -> None:
    service = InMemorySessionService()
    session = await service.create_session(app_name=APP, user_id="u")
    async with service.turn(session, invocation_id="quick"):
        await service.append_event(session, _event("quick"))
    assert await _intrude(service, session) is None
    async with service.turn(await _reload(service, session), invocation_id="next"):
        pass


async def test_a_turn_abandoned_in_a_closed_loop_expires_after_its_ttl() -> None:
    service = InMemorySessionService()
    session = await service.create_session(app_name=APP, user_id="u")
    ttl = 0.3
    turn = service.turn(session, invocation_id="abandoned", ttl=ttl)

    async def enter_only() -> None:
        await turn.__aenter__()  # never exited; asyncio.run then closes the loop

    await asyncio.to_thread(asyncio.run, enter_only())
    claimed_by = time.time()
    # (`turn` stays referenced until the end: the closed loop ends the lease, not the
    # garbage collector)
    busy = await _intrude(service, session)  # not expired yet, and not renewed
    assert busy is not None and busy.owner == "abandoned"
    assert busy.expires_at is not None and busy.expires_at <= claimed_by + ttl
    await asyncio.sleep(busy.expires_at - time.time() + 0.02)
    assert await _intrude(service, session) is None  # expired: another writer gets in
    async with service.turn(await _reload(service, session), invocation_id="next"):
        pass
    assert _leases._open_turns.get(turn._owner) is turn  # type: ignore[attr-defined]


async def test_a_turn_left_in_a_stopped_loop_expires_after_its_ttl() -> None:
    service = InMemorySessionService()
    session = await service.create_session(app_name=APP, user_id="u")
    turn = service.turn(session, invocation_id="parked", ttl=TTL)

    def enter_in_a_loop_then_stop() -> asyncio.AbstractEventLoop:
        loop = asyncio.new_event_loop()
        loop.run_until_complete(turn.__aenter__())
        return loop  # not running any more, not closed

    loop = await asyncio.to_thread(enter_in_a_loop_then_stop)
    try:
        await asyncio.sleep(2 * TTL)
        assert await _intrude(service, session) is None
    finally:
        loop.close()


async def test_a_collected_turn_expires_after_its_ttl() -> None:
    service = InMemorySessionService()
    session = await service.create_session(app_name=APP, user_id="u")
    turn = service.turn(session, invocation_id="dropped", ttl=TTL)
    await turn.__aenter__()  # in this (running) loop, then dropped without exit
    assert await _intrude(service, session) is not None
    del turn
    gc.collect()
    await asyncio.sleep(2 * TTL)
    assert await _intrude(service, session) is None


async def test_in_memory_turns_run_no_renewal_timer(monkeypatch: pytest.MonkeyPatch) -> None:
    service = InMemorySessionService()
    session = await service.create_session(app_name=APP, user_id="u")
    loop = asyncio.get_running_loop()
    timers: list[Any] = []
    call_later = loop.call_later

    def counting_call_later(delay: float, callback: Any, *args: Any, **kw: Any) -> Any:
        timers.append(callback)
        return call_later(delay, callback, *args, **kw)

    monkeypatch.setattr(loop, "call_later", counting_call_later)
    turn = service.turn(session, invocation_id="untimed", ttl=TTL)
    async with turn:
        assert turn._renewal is None  # type: ignore[attr-defined]
        await service.append_event(session, _event("untimed"))
    assert timers == []
    assert turn._owner not in _leases._open_turns  # type: ignore[attr-defined]


async def test_sql_turns_still_renew_by_timer(tmp_path: Any) -> None:
    service = SqliteSessionService(tmp_path / "s.db")
    try:
        session = await service.create_session(app_name=APP, user_id="u")
        turn = service.turn(session, invocation_id="timed")
        async with turn:
            assert turn._renewal is not None  # type: ignore[attr-defined]
        assert turn._renewal is None  # type: ignore[attr-defined]
    finally:
        await service.close()


def test_turn_is_live_follows_the_turn() -> None:
    service = InMemorySessionService()
    seen: list[bool] = []

    async def run() -> str:
        session = await service.create_session(app_name=APP, user_id="u")
        turn = service.turn(session, invocation_id="probe")
        await turn.__aenter__()
        owner: str = turn._owner  # type: ignore[attr-defined]
        seen.append(_leases.turn_is_live(owner))
        await turn.__aexit__(None, None, None)
        seen.append(_leases.turn_is_live(owner))
        return owner

    assert _leases.turn_is_live("no-such-owner/x") is False
    asyncio.run(run())
    assert seen == [True, False]
