"""InMemorySessionService: sessions kept in process memory (tests, demos)."""

from __future__ import annotations

import copy
import threading
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

from pyadk.events.event import Event
from pyadk.sessions._leases import (
    DEFAULT_LEASE_TTL,
    LeasedTurns,
    session_lease,
    writer_refusal,
)
from pyadk.sessions.base_session_service import (
    BaseSessionService,
    GetSessionConfig,
    ListSessionsResponse,
    SessionNotFoundError,
    session_seq,
    set_session_seq,
)
from pyadk.sessions.errors import foreign_session_error
from pyadk.sessions.session import Session
from pyadk.sessions.state import State
from pyadk.sessions.state_scopes import merge_scoped_state, split_scoped_state
from pyadk.utils.fast_models import copy_model


@dataclass
class _StoredSession:
    id: str
    app_name: str
    user_id: str
    state: dict[str, Any]
    events: list[Event] = field(default_factory=list)
    last_update_time: float = field(default_factory=time.time)
    lease_owner: str | None = None
    lease_expires: float = 0.0


class InMemorySessionService(LeasedTurns, BaseSessionService):
    """Keeps sessions in memory.

    Appending costs the same at any session length (one copy of the new event, never
    of the history). ``get_session`` returns copies, so callers cannot change what is
    stored except through :meth:`append_event`. Like the SQL services, it refuses
    appends from a session object that missed other appends (``StaleSessionError``) and
    gives a turn (:meth:`turn`) the session to itself (``SessionBusyError`` for others);
    ``lease_ttl`` and ``lease_wait`` are the defaults of :meth:`turn`.
    """

    def __init__(self, *, lease_ttl: float = DEFAULT_LEASE_TTL, lease_wait: float = 0.0) -> None:
        self._set_lease_policy(lease_ttl, lease_wait)
        # Runner.run drives each turn in its own thread and event loop: checks and
        # writes happen under this lock.
        self._lock = threading.Lock()
        self._sessions: dict[tuple[str, str, str], _StoredSession] = {}
        self._app_state: dict[str, dict[str, Any]] = {}
        self._user_state: dict[tuple[str, str], dict[str, Any]] = {}

    async def create_session(
        self,
        *,
        app_name: str,
        user_id: str,
        state: dict[str, Any] | None = None,
        session_id: str | None = None,
    ) -> Session:
        sid = (session_id or "").strip() or str(uuid.uuid4())
        key = (app_name, user_id, sid)
        if key in self._sessions:
            raise ValueError(
                f"Session {sid!r} already exists for app {app_name!r}, user {user_id!r}."
            )
        app_delta, user_delta, own = split_scoped_state(copy.deepcopy(state or {}))
        self._app_state.setdefault(app_name, {}).update(app_delta)
        self._user_state.setdefault((app_name, user_id), {}).update(user_delta)
        stored = _StoredSession(id=sid, app_name=app_name, user_id=user_id, state=own)
        self._sessions[key] = stored
        return self._snapshot(stored, None, deep=True)

    async def get_session(
        self,
        *,
        app_name: str,
        user_id: str,
        session_id: str,
        config: GetSessionConfig | None = None,
    ) -> Session | None:
        stored = self._sessions.get((app_name, user_id, session_id))
        return None if stored is None else self._snapshot(stored, config, deep=True)

    async def _load_session_for_run(
        self, *, app_name: str, user_id: str, session_id: str
    ) -> Session | None:
        stored = self._sessions.get((app_name, user_id, session_id))
        return None if stored is None else self._snapshot(stored, None, deep=False)

    def _snapshot(
        self, stored: _StoredSession, config: GetSessionConfig | None, *, deep: bool
    ) -> Session:
        events = stored.events
        if config is not None:
            if config.after_timestamp is not None:
                events = [e for e in events if e.timestamp >= config.after_timestamp]
            if config.num_recent_events:
                events = events[-config.num_recent_events :]
        events = [_private_copy(e) for e in events] if deep else list(events)
        state = merge_scoped_state(
            self._app_state.get(stored.app_name, {}),
            self._user_state.get((stored.app_name, stored.user_id), {}),
            stored.state,
        )
        session = Session.model_construct(
            id=stored.id,
            app_name=stored.app_name,
            user_id=stored.user_id,
            state=copy.deepcopy(state),
            events=events,
            last_update_time=stored.last_update_time,
        )
        set_session_seq(session, len(stored.events))
        return session

    async def list_sessions(self, *, app_name: str, user_id: str) -> ListSessionsResponse:
        sessions = [
            Session.model_construct(
                id=s.id,
                app_name=s.app_name,
                user_id=s.user_id,
                state={},
                events=[],
                last_update_time=s.last_update_time,
            )
            for (app, user, _), s in self._sessions.items()
            if app == app_name and user == user_id
        ]
        return ListSessionsResponse(sessions=sessions)

    async def delete_session(self, *, app_name: str, user_id: str, session_id: str) -> None:
        self._sessions.pop((app_name, user_id, session_id), None)

    def _stored(self, session: Session) -> _StoredSession:
        stored = self._sessions.get((session.app_name, session.user_id, session.id))
        if stored is None:
            raise SessionNotFoundError(
                f"Session {session.id!r} not found for app {session.app_name!r}, "
                f"user {session.user_id!r}."
            )
        return stored

    @staticmethod
    def _seen(session: Session, stored: _StoredSession) -> int:
        """How many stored events ``session`` has seen; for an object this service did not
        load, all of them provided its last event is the stored last event."""
        seen = session_seq(session)
        if seen is not None:
            return seen
        stored_last = stored.events[-1].id if stored.events else None
        own_last = session.events[-1].id if session.events else None
        if stored_last != own_last:
            raise foreign_session_error(session, len(stored.events))
        return len(stored.events)

    def _check_writer(self, session: Session, stored: _StoredSession) -> None:
        """Raises (SessionBusyError, StaleSessionError) unless ``session`` may append."""
        refusal = writer_refusal(
            session.app_name,
            session.user_id,
            session.id,
            lease=session_lease(session),
            owner=stored.lease_owner,
            expires=stored.lease_expires,
            now=time.time(),
            expected_seq=self._seen(session, stored),
            actual_seq=len(stored.events),
        )
        if refusal is not None:
            raise refusal

    async def _claim_lease(self, session: Session, owner: str, ttl: float) -> None:
        with self._lock:
            stored = self._stored(session)
            self._check_writer(session, stored)
            set_session_seq(session, len(stored.events))
            stored.lease_owner, stored.lease_expires = owner, time.time() + ttl

    async def _renew_lease(self, session: Session, owner: str, ttl: float) -> bool:
        with self._lock:
            stored = self._sessions.get((session.app_name, session.user_id, session.id))
            if stored is None or stored.lease_owner != owner:
                return False
            stored.lease_expires = time.time() + ttl
            return True

    async def _release_lease(self, session: Session, owner: str) -> None:
        with self._lock:
            stored = self._sessions.get((session.app_name, session.user_id, session.id))
            if stored is not None and stored.lease_owner == owner:
                stored.lease_owner, stored.lease_expires = None, 0.0

    async def append_event(self, session: Session, event: Event) -> Event:
        """Stores a private copy of ``event`` and applies it to ``session``.

        Raises SessionNotFoundError, StaleSessionError (the object missed other
        appends) or SessionBusyError (another turn holds the session), changing nothing.
        """
        if event.partial:
            return event
        kept = _private_copy(event)
        delta = self._persistable_delta(kept)  # from the private copy: no shared values
        kept.actions.state_delta = delta
        with self._lock:
            stored = self._stored(session)
            self._check_writer(session, stored)
            if delta:
                app_delta, user_delta, own = split_scoped_state(delta)
                if app_delta:
                    self._app_state.setdefault(session.app_name, {}).update(app_delta)
                if user_delta:
                    self._user_state.setdefault((session.app_name, session.user_id), {}).update(
                        user_delta
                    )
                stored.state.update(own)
            stored.events.append(kept)
            stored.last_update_time = event.timestamp
            lease = session_lease(session)
            if lease is not None:
                stored.lease_expires = time.time() + lease[1]
            set_session_seq(session, len(stored.events))
        self._apply_to_session(session, event)
        return event


def _private_copy(event: Event) -> Event:
    """A deep copy of ``event`` (same set fields; nothing shared but immutable values)."""
    return copy_model(event)


__all__ = ["InMemorySessionService", "State"]
