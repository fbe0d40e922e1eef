"""InMemorySessionService: sessions kept in process memory (tests, demos)."""

from __future__ import annotations

import copy
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

from pyadk.events.event import Event
from pyadk.sessions.base_session_service import (
    BaseSessionService,
    GetSessionConfig,
    ListSessionsResponse,
    SessionNotFoundError,
)
from pyadk.sessions.session import Session
from pyadk.sessions.state import State
from pyadk.sessions.state_scopes import merge_scoped_state, split_scoped_state


@dataclass
class _StoredSession:
    id: str
    app_name: str
    user_id: str
    state: dict[str, Any]
    events: list[Event] = field(default_factory=list)
    last_update_time: float = field(default_factory=time.time)


class InMemorySessionService(BaseSessionService):
    """Keeps sessions in memory.

    Appending costs the same at any session length (one copy of the new event, never
    of the history). ``get_session`` returns copies, so callers cannot change what is
    stored except through :meth:`append_event`.
    """

    def __init__(self) -> None:
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
        return Session.model_construct(
            id=stored.id,
            app_name=stored.app_name,
            user_id=stored.user_id,
            state=copy.deepcopy(state),
            events=events,
            last_update_time=stored.last_update_time,
        )

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

    async def append_event(self, session: Session, event: Event) -> Event:
        if event.partial:
            return event
        stored = self._sessions.get((session.app_name, session.user_id, session.id))
        if stored is None:
            raise SessionNotFoundError(
                f"Session {session.id!r} not found for app {session.app_name!r}, "
                f"user {session.user_id!r}."
            )
        self._apply_to_session(session, event)
        kept = _private_copy(event)
        delta = self._persistable_delta(kept)  # from the private copy: no shared values
        kept.actions.state_delta = delta
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
        return event


def _private_copy(event: Event) -> Event:
    """A deep copy of ``event`` (a dump and re-validation: twice as fast as deepcopy)."""
    return Event.model_validate(event.model_dump())


__all__ = ["InMemorySessionService", "State"]
