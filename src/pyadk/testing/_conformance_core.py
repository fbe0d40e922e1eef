"""Session-service conformance: CRUD, scoped state, filters, payloads, bad input."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import uuid
from typing import Any

import pytest

from pyadk import types
from pyadk.events.event import Event
from pyadk.events.event_actions import EventActions
from pyadk.sessions.base_session_service import (
    BaseSessionService,
    GetSessionConfig,
    SessionNotFoundError,
)
from pyadk.sessions.session import Session
from pyadk.testing._service_fixture import ServiceUnderTest

WORKER = [sys.executable, "-m", "pyadk.testing._session_workers"]
"""The command of the conformance suite's child processes (see ``_session_workers``)."""


def text_event(text: str, *, author: str = "agent", **kwargs: Any) -> Event:
    """An event with one text part."""
    return Event(
        author=author, content=types.Content(role="model", parts=[types.Part(text=text)]), **kwargs
    )


def delta_event(delta: dict[str, Any], *, author: str = "agent") -> Event:
    """An event that only changes state."""
    return Event(author=author, actions=EventActions(state_delta=delta))


def dumped(events: list[Event]) -> list[dict[str, Any]]:
    """Events as JSON data, for exact comparisons."""
    return [e.model_dump(mode="json", exclude_none=True) for e in events]


class ConformanceBase(ServiceUnderTest[BaseSessionService]):
    """Fixtures shared by the conformance mixins. Subclasses implement make_service."""

    checks_stale_sessions: bool = True
    """The service refuses appends from a session object that missed other appends."""
    paginates: bool = True
    """``list_sessions`` accepts ``page_size`` and ``page_token``."""
    leases_turns: bool = True
    """``turn`` gives a turn the session to itself (``SessionBusyError`` for others)."""

    def service_uri(self) -> str | None:
        """A URI another process can open (``session_service_from_uri``), if any."""
        return None

    @pytest.fixture
    def app(self) -> str:
        """A fresh app name, so tests sharing one database never see each other."""
        return f"app-{uuid.uuid4().hex[:12]}"

    async def reload(self, service: BaseSessionService, session: Session) -> Session:
        got = await service.get_session(
            app_name=session.app_name, user_id=session.user_id, session_id=session.id
        )
        assert got is not None, f"session {session.id!r} vanished"
        return got

    def uri_or_skip(self) -> str:
        """:meth:`service_uri`, or a skip when the service is not shared by processes."""
        uri = self.service_uri()
        if uri is None:
            pytest.skip(f"{type(self).__name__} is not shared between processes")
        return uri

    async def run_two_workers(
        self, command: str, session: Session, count: int, timeout: float
    ) -> None:
        """Runs ``command`` (see ``_session_workers``) on ``session`` in two processes,
        tagged ``p1`` and ``p2``, started together once both are ready; both must
        succeed within ``timeout`` seconds."""
        where = [self.uri_or_skip(), session.app_name, session.user_id, session.id]
        procs = [
            subprocess.Popen(
                [*WORKER, command, *where, tag, str(count)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
            )
            for tag in ("p1", "p2")
        ]
        try:
            for proc in procs:  # both loaded the session before either writes
                assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
            for proc in procs:
                assert proc.stdin is not None
                proc.stdin.write("go\n")
                proc.stdin.flush()
            outputs = [await asyncio.to_thread(proc.communicate, None, timeout) for proc in procs]
        finally:
            for proc in procs:
                proc.kill()
        assert [p.returncode for p in procs] == [0, 0], outputs


class CoreConformance(ConformanceBase):
    """CRUD, state scopes, temp keys, partial events, filters, payloads, errors."""

    async def test_create_then_get_returns_id_state_and_no_events(
        self, service: BaseSessionService, app: str
    ) -> None:
        created = await service.create_session(
            app_name=app, user_id="u", session_id="s1", state={"k": 1, "nested": {"a": [1]}}
        )
        assert (created.id, created.app_name, created.user_id) == ("s1", app, "u")
        assert created.state == {"k": 1, "nested": {"a": [1]}}
        got = await service.get_session(app_name=app, user_id="u", session_id="s1")
        assert got is not None
        assert (got.id, got.state, got.events) == ("s1", {"k": 1, "nested": {"a": [1]}}, [])

    async def test_generated_ids_are_distinct_and_loadable(
        self, service: BaseSessionService, app: str
    ) -> None:
        first = await service.create_session(app_name=app, user_id="u")
        second = await service.create_session(app_name=app, user_id="u")
        assert first.id != second.id
        assert await service.get_session(app_name=app, user_id="u", session_id=first.id)

    async def test_duplicate_id_is_refused_and_original_kept(
        self, service: BaseSessionService, app: str
    ) -> None:
        await service.create_session(app_name=app, user_id="u", session_id="d", state={"a": 1})
        with pytest.raises(ValueError, match="'d' already exists"):
            await service.create_session(app_name=app, user_id="u", session_id="d", state={"a": 2})
        got = await service.get_session(app_name=app, user_id="u", session_id="d")
        assert got is not None and got.state == {"a": 1}
        await service.create_session(app_name=app, user_id="other", session_id="d")

    async def test_unknown_session_or_wrong_app_or_user_is_none(
        self, service: BaseSessionService, app: str
    ) -> None:
        await service.create_session(app_name=app, user_id="u", session_id="s")
        assert await service.get_session(app_name=app, user_id="u", session_id="nope") is None
        assert await service.get_session(app_name=app, user_id="x", session_id="s") is None
        assert await service.get_session(app_name=app + "x", user_id="u", session_id="s") is None

    async def test_list_sessions_is_per_user_and_carries_no_events(
        self, service: BaseSessionService, app: str
    ) -> None:
        a = await service.create_session(app_name=app, user_id="u")
        b = await service.create_session(app_name=app, user_id="u")
        await service.create_session(app_name=app, user_id="other")
        await service.append_event(a, text_event("hello"))
        listed = (await service.list_sessions(app_name=app, user_id="u")).sessions
        assert sorted(s.id for s in listed) == sorted([a.id, b.id])
        assert all(s.events == [] for s in listed)
        assert (await service.list_sessions(app_name=app, user_id="nobody")).sessions == []

    async def test_delete_removes_only_that_session(
        self, service: BaseSessionService, app: str
    ) -> None:
        gone = await service.create_session(app_name=app, user_id="u", session_id="gone")
        kept = await service.create_session(app_name=app, user_id="u", session_id="kept")
        await service.append_event(gone, text_event("bye"))
        await service.append_event(kept, text_event("stay"))
        await service.delete_session(app_name=app, user_id="u", session_id="gone")
        await service.delete_session(app_name=app, user_id="u", session_id="never-existed")
        assert await service.get_session(app_name=app, user_id="u", session_id="gone") is None
        kept_now = await self.reload(service, kept)
        assert [e.text for e in kept_now.events] == ["stay"]
        # The id can be reused and starts empty.
        again = await service.create_session(app_name=app, user_id="u", session_id="gone")
        assert (await self.reload(service, again)).events == []

    async def test_events_round_trip_exactly(self, service: BaseSessionService, app: str) -> None:
        session = await service.create_session(app_name=app, user_id="u")
        blob = types.Part(inline_data=types.Blob(mime_type="image/png", data=bytes(range(256))))
        events = [
            Event(
                author="user",
                invocation_id="inv-1",
                content=types.Content(role="user", parts=[types.Part(text="héllo ✓ 🎉"), blob]),
            ),
            Event(
                author="agent",
                invocation_id="inv-1",
                branch="root.agent",
                content=types.Content(
                    role="model",
                    parts=[types.Part(function_call=types.FunctionCall(name="f", args={"x": 1}))],
                ),
                long_running_tool_ids={"call-1"},
                actions=EventActions(artifact_delta={"a.txt": 0}, transfer_to_agent="other"),
            ),
        ]
        for event in events:
            assert await service.append_event(session, event) is event
        got = await self.reload(service, session)
        assert dumped(got.events) == dumped(events)
        assert [e.id for e in session.events] == [e.id for e in events]

    async def test_app_state_is_shared_by_every_user_and_session(
        self, service: BaseSessionService, app: str
    ) -> None:
        one = await service.create_session(app_name=app, user_id="u1", state={"app:plan": "a"})
        two = await service.create_session(app_name=app, user_id="u2")
        assert two.state == {"app:plan": "a"}
        await service.append_event(two, delta_event({"app:plan": "b", "own": 2}))
        assert (await self.reload(service, one)).state == {"app:plan": "b"}
        assert (await self.reload(service, two)).state == {"app:plan": "b", "own": 2}
        other_app = await service.create_session(app_name=app + "-2", user_id="u1")
        assert other_app.state == {}

    async def test_user_state_is_shared_by_that_users_sessions_only(
        self, service: BaseSessionService, app: str
    ) -> None:
        first = await service.create_session(app_name=app, user_id="u", state={"user:n": 1})
        await service.append_event(first, delta_event({"user:lang": "fr"}))
        second = await service.create_session(app_name=app, user_id="u")
        assert second.state == {"user:n": 1, "user:lang": "fr"}
        stranger = await service.create_session(app_name=app, user_id="v")
        assert stranger.state == {}

    async def test_temp_keys_live_in_the_session_object_but_are_never_stored(
        self, service: BaseSessionService, app: str
    ) -> None:
        session = await service.create_session(
            app_name=app, user_id="u", state={"temp:boot": 1, "k": 0}
        )
        assert "temp:boot" not in (await self.reload(service, session)).state
        event = delta_event({"temp:scratch": object(), "k": 1})
        await service.append_event(session, event)
        assert "temp:scratch" in session.state  # visible for the rest of the invocation
        got = await self.reload(service, session)
        assert got.state == {"k": 1}
        assert got.events[0].actions.state_delta == {"k": 1}

    async def test_later_deltas_overwrite_and_none_is_a_value(
        self, service: BaseSessionService, app: str
    ) -> None:
        session = await service.create_session(app_name=app, user_id="u", state={"a": 1})
        await service.append_event(session, delta_event({"a": 2, "b": "x"}))
        await service.append_event(session, delta_event({"b": None}))
        assert (await self.reload(service, session)).state == {"a": 2, "b": None}

    async def test_partial_events_are_returned_but_not_stored(
        self, service: BaseSessionService, app: str
    ) -> None:
        session = await service.create_session(app_name=app, user_id="u")
        chunk = text_event("par", partial=True, actions=EventActions(state_delta={"k": 1}))
        assert await service.append_event(session, chunk) is chunk
        await service.append_event(session, text_event("partial done"))
        got = await self.reload(service, session)
        assert [e.text for e in got.events] == ["partial done"]
        assert "k" not in got.state

    async def test_num_recent_events_and_after_timestamp(
        self, service: BaseSessionService, app: str
    ) -> None:
        session = await service.create_session(app_name=app, user_id="u")
        for i, ts in enumerate([100.0, 200.0, 300.0, 400.0]):
            await service.append_event(session, text_event(f"e{i}", timestamp=ts))

        async def texts(**config: Any) -> list[str | None]:
            got = await service.get_session(
                app_name=app, user_id="u", session_id=session.id, config=GetSessionConfig(**config)
            )
            assert got is not None
            return [e.text for e in got.events]

        assert await texts(num_recent_events=2) == ["e2", "e3"]
        assert await texts(num_recent_events=10) == ["e0", "e1", "e2", "e3"]
        assert await texts(num_recent_events=0) == ["e0", "e1", "e2", "e3"]  # 0: no limit
        assert await texts(after_timestamp=200.0) == ["e1", "e2", "e3"]
        assert await texts(after_timestamp=250.0, num_recent_events=1) == ["e3"]
        assert await texts(after_timestamp=999.0) == []

    async def test_append_updates_last_update_time(
        self, service: BaseSessionService, app: str
    ) -> None:
        session = await service.create_session(app_name=app, user_id="u")
        await service.append_event(session, text_event("x", timestamp=1234.5))
        assert session.last_update_time == 1234.5
        assert (await self.reload(service, session)).last_update_time == 1234.5

    async def test_append_to_unknown_or_deleted_session_raises_not_found(
        self, service: BaseSessionService, app: str
    ) -> None:
        session = await service.create_session(app_name=app, user_id="u", session_id="s")
        ghost = session.model_copy(update={"user_id": "intruder"})
        with pytest.raises(SessionNotFoundError, match="'s' not found"):
            await service.append_event(ghost, text_event("x"))
        assert ghost.events == []
        await service.delete_session(app_name=app, user_id="u", session_id="s")
        with pytest.raises(SessionNotFoundError):
            await service.append_event(session, text_event("late"))
        assert await service.get_session(app_name=app, user_id="u", session_id="s") is None

    async def test_unicode_names_and_large_payloads(
        self, service: BaseSessionService, app: str
    ) -> None:
        name, user, key = app + "-ünï \u2018q\u2019 🎉", "usér\u00a0'; DROP TABLE x;--", "clé 🗝"
        session = await service.create_session(app_name=name, user_id=user, session_id="セッション")
        big_text = "λ" * 1_000_000
        big_value = {"rows": [{"i": i, "s": "x" * 50} for i in range(5_000)]}
        await service.append_event(session, text_event(big_text))
        await service.append_event(session, delta_event({key: big_value, "user:" + key: "ü"}))
        got = await service.get_session(app_name=name, user_id=user, session_id="セッション")
        assert got is not None
        assert got.events[0].text == big_text
        assert got.state == {key: big_value, "user:" + key: "ü"}

    async def test_many_tasks_on_different_sessions_lose_nothing(
        self, service: BaseSessionService, app: str
    ) -> None:
        sessions = [await service.create_session(app_name=app, user_id="u") for _ in range(8)]

        async def writer(session: Session) -> None:
            for i in range(10):
                await service.append_event(session, text_event(f"{session.id}:{i}"))

        await asyncio.gather(*(writer(s) for s in sessions))
        for session in sessions:
            got = await self.reload(service, session)
            assert [e.text for e in got.events] == [f"{session.id}:{i}" for i in range(10)]
