"""Session-service conformance: concurrent writers, pagination, processes, kill -9."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
from typing import Any

import pytest

from pyadk.sessions.base_session_service import BaseSessionService
from pyadk.sessions.errors import SessionBusyError, StaleSessionError
from pyadk.sessions.session import Session
from pyadk.testing._conformance_core import WORKER, ConformanceBase, text_event


class ConcurrencyConformance(ConformanceBase):
    """Many writers on one session, paging, two OS processes, a killed process."""

    crash_lease_ttl = 3.0
    """The lease ttl of the killed worker's turn: how long its session stays busy."""

    async def test_tasks_retrying_on_one_session_store_every_event_once(
        self, service: BaseSessionService, app: str
    ) -> None:
        session = await service.create_session(app_name=app, user_id="u")

        async def writer(tag: str) -> None:
            mine = await self.reload(service, session)
            done = 0
            while done < 10:
                try:
                    await service.append_event(mine, text_event(f"{tag}{done}"))
                    done += 1
                except StaleSessionError:
                    mine = await self.reload(service, session)
                await asyncio.sleep(0)

        await asyncio.gather(*(writer(tag) for tag in "abcdef"))
        texts = [e.text or "" for e in (await self.reload(service, session)).events]
        assert len(texts) == 60
        for tag in "abcdef":  # each writer's events once each, in its own order
            assert [t for t in texts if t[0] == tag] == [f"{tag}{i}" for i in range(10)]

    async def test_stale_session_object_is_refused_and_nothing_is_written(
        self, service: BaseSessionService, app: str
    ) -> None:
        if not self.checks_stale_sessions:
            pytest.skip(f"{type(self).__name__} does not check for stale sessions")
        session = await service.create_session(app_name=app, user_id="u", state={"k": 0})
        first = await self.reload(service, session)
        second = await self.reload(service, session)
        await service.append_event(first, text_event("first", actions={"state_delta": {"k": 1}}))
        late = text_event("late", actions={"state_delta": {"k": 2}})
        with pytest.raises(StaleSessionError, match="another writer") as refused:
            await service.append_event(second, late)
        assert (refused.value.expected_seq, refused.value.actual_seq) == (0, 1)
        assert (second.events, second.state) == ([], {"k": 0})  # object untouched
        stored = await self.reload(service, session)
        assert ([e.text for e in stored.events], stored.state) == (["first"], {"k": 1})
        await service.append_event(stored, late)  # a fresh load may append
        assert [e.text for e in (await self.reload(service, session)).events] == [
            "first",
            "late",
        ]

    async def test_list_sessions_pages_in_creation_order(
        self, service: BaseSessionService, app: str
    ) -> None:
        if not self.paginates:
            pytest.skip(f"{type(self).__name__} does not paginate list_sessions")
        ids = [(await service.create_session(app_name=app, user_id="u")).id for _ in range(7)]
        await service.create_session(app_name=app, user_id="someone-else")
        seen: list[str] = []
        token: str | None = None
        pages = 0
        while True:
            page: Any = await service.list_sessions(  # type: ignore[call-arg]
                app_name=app, user_id="u", page_size=3, page_token=token
            )
            assert len(page.sessions) <= 3
            seen += [s.id for s in page.sessions]
            pages += 1
            token = page.next_page_token
            if token is None:
                break
        assert (seen, pages) == (ids, 3)
        with pytest.raises(ValueError, match="page_size"):
            await service.list_sessions(app_name=app, user_id="u", page_size=0)  # type: ignore[call-arg]
        with pytest.raises(ValueError, match="page_token"):
            await service.list_sessions(app_name=app, user_id="u", page_token="garbage")  # type: ignore[call-arg]

    async def test_two_processes_appending_to_one_session_lose_nothing(
        self, service: BaseSessionService, app: str
    ) -> None:
        self.uri_or_skip()
        session = await service.create_session(app_name=app, user_id="u", session_id="shared")
        count = 40
        await self.run_two_workers("append", session, count, timeout=120)
        events = (await self.reload(service, session)).events
        assert len(events) == 2 * count
        assert len({e.id for e in events}) == 2 * count
        for tag in ("p1", "p2"):
            mine = [e.invocation_id for e in events if e.author == tag]
            assert mine == [f"{tag}-{i}" for i in range(count)]

    async def test_process_killed_mid_run_leaves_every_yielded_event(
        self, service: BaseSessionService, app: str
    ) -> None:
        uri = self.uri_or_skip()
        session = await service.create_session(app_name=app, user_id="u")
        proc = subprocess.Popen(
            [*WORKER, "crash", uri, app, "u", session.id, str(self.crash_lease_ttl)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        yielded: list[str] = []
        try:
            assert proc.stdout is not None
            while len(yielded) < 15:
                line = await asyncio.to_thread(proc.stdout.readline)
                assert line, f"worker ended early: {proc.stderr.read() if proc.stderr else ''}"
                yielded.append(line.strip())
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait()
            rest = proc.stdout.read()  # printed before the kill, not read yet
            yielded += [line for line in rest.split("\n") if line]
        finally:
            proc.kill()
            proc.wait()
        assert proc.returncode == -signal.SIGKILL
        stored = await self._fresh_load(session)
        assert stored.events[0].author == "user"  # the Runner stores it, does not yield it
        stored_ids = [e.id for e in stored.events[1:]]
        assert stored_ids[: len(yielded)] == yielded  # every yielded event, in order
        assert len(stored_ids) <= len(yielded) + 1  # at most one stored but not yet yielded
        await self.fresh_service_append(stored)

    async def _fresh_load(self, session: Session) -> Session:
        fresh = await self.make_service()
        try:
            return await self.reload(fresh, session)
        finally:
            await fresh.close()

    async def fresh_service_append(self, session: Session) -> None:
        """The killed turn's lease keeps the session busy until it expires (nothing is
        locked for good); then the session takes appends again."""
        fresh: BaseSessionService = await self.make_service()
        recovery: contextlib.AbstractAsyncContextManager[Session]
        try:
            if self.leases_turns:
                with pytest.raises(SessionBusyError) as busy:
                    await fresh.append_event(session, text_event("too early"))
                assert busy.value.owner == session.events[0].invocation_id
                assert 0 < (busy.value.retry_after or 0) <= self.crash_lease_ttl
                recovery = fresh.turn(session, invocation_id="recovery", wait=60)
            else:
                recovery = contextlib.nullcontext(session)
            async with recovery:
                await asyncio.wait_for(fresh.append_event(session, text_event("after crash")), 60)
            stored = await self.reload(fresh, session)
            assert [e.id for e in stored.events] == [e.id for e in session.events]
            assert stored.events[-1].text == "after crash"
        finally:
            await fresh.close()
