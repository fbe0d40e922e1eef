"""BaseSessionService: the contract of every session store."""

import abc
import contextlib
from contextlib import AbstractAsyncContextManager
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from pyadk.events.event import Event
from pyadk.sessions._leases import (
    DEFAULT_LEASE_TTL,
    mark_turn_ending,
    release_open_turns,
    session_lease,
)
from pyadk.sessions.session import Session
from pyadk.sessions.state import State
from pyadk.utils.attribute_lookup import PlainAttributeLookup

_SEQ_ATTR = "_pyadk_seq"
"""Where a loaded Session object keeps the sequence number it has seen (not a field)."""


class GetSessionConfig(PlainAttributeLookup, BaseModel):
    """Limits what ``get_session`` loads: the latest N events and/or those after a time.

    ``num_recent_events`` of None or 0 loads every event (as google-adk does)."""

    model_config = ConfigDict(defer_build=True)

    num_recent_events: int | None = None
    after_timestamp: float | None = None


class ListSessionsResponse(PlainAttributeLookup, BaseModel):
    """The sessions of a user (without their events)."""

    model_config = ConfigDict(defer_build=True)

    sessions: list[Session] = Field(default_factory=list)


class SessionNotFoundError(ValueError):
    """The session (app, user, id) does not exist."""


def session_seq(session: Session) -> int | None:
    """The number of stored events this session object has seen, if a service set it."""
    return seq_in(session.__dict__)


def seq_in(values: dict[str, Any]) -> int | None:
    """:func:`session_seq` of the session whose ``__dict__`` is ``values``."""
    value = values.get(_SEQ_ATTR)
    return value if isinstance(value, int) else None


def set_session_seq(session: Session, seq: int) -> None:
    """Records on ``session`` that it has seen ``seq`` stored events."""
    session.__dict__[_SEQ_ATTR] = seq  # what object.__setattr__ does, without its lookup


class BaseSessionService(abc.ABC):
    """Stores sessions. Subclasses persist; :meth:`append_event` applies state deltas."""

    lease_ttl: float = DEFAULT_LEASE_TTL
    """Default ``ttl`` of :meth:`turn`: how long a crashed turn keeps its session."""
    lease_wait: float = 0.0
    """Default ``wait`` of :meth:`turn`: 0 refuses a busy session at once."""

    @abc.abstractmethod
    async def create_session(
        self,
        *,
        app_name: str,
        user_id: str,
        state: dict[str, Any] | None = None,
        session_id: str | None = None,
    ) -> Session:
        """Creates a session; ``session_id`` defaults to a new UUID."""

    @abc.abstractmethod
    async def get_session(
        self,
        *,
        app_name: str,
        user_id: str,
        session_id: str,
        config: GetSessionConfig | None = None,
    ) -> Session | None:
        """The session with its events and merged app/user state, or None."""

    @abc.abstractmethod
    async def list_sessions(self, *, app_name: str, user_id: str) -> ListSessionsResponse:
        """The user's sessions, without events."""

    @abc.abstractmethod
    async def delete_session(self, *, app_name: str, user_id: str, session_id: str) -> None:
        """Deletes a session (no error if it does not exist)."""

    async def _load_session_for_run(
        self, *, app_name: str, user_id: str, session_id: str
    ) -> Session | None:
        """The session a Runner works on for one turn (may share stored events)."""
        return await self.get_session(app_name=app_name, user_id=user_id, session_id=session_id)

    def turn(
        self,
        session: Session,
        *,
        invocation_id: str,
        ttl: float | None = None,
        wait: float | None = None,
    ) -> AbstractAsyncContextManager[Session]:
        """Makes ``session`` single-writer for one turn (``async with``).

        Services with leases (every pyadk service) claim the session for the turn
        ``invocation_id`` before anything is written: a session whose lease another
        turn holds raises :class:`~pyadk.sessions.SessionBusyError`, a session object
        that missed stored events raises :class:`~pyadk.sessions.StaleSessionError`.
        Inside the block, only appends through ``session`` are accepted; each renews the
        lease, which is also renewed in the background every ``ttl / 3`` seconds and
        released on exit. A lease whose process died expires ``ttl`` seconds (default
        :attr:`lease_ttl`) after its last renewal. ``wait`` (default :attr:`lease_wait`)
        is how many seconds to wait for a busy session before raising.

        This default does nothing, so services without leases keep working.
        """
        return contextlib.nullcontext(session)

    async def append_event(self, session: Session, event: Event) -> Event:
        """Appends ``event`` to ``session`` and applies its state delta.

        Partial events are returned untouched and not stored; ``temp:`` keys update the
        live session but are never persisted.
        """
        if event.partial:
            return event
        self._apply_to_session(session, event)
        return event

    @staticmethod
    def _apply_to_session(session: Session, event: Event) -> None:
        """Applies ``event`` to the live ``session`` (its fields read and set through
        its ``__dict__``: one attribute lookup instead of one per field)."""
        values = session.__dict__
        delta = event.actions.state_delta
        if delta:
            values["state"].update(delta)
        values["events"].append(event)
        values["last_update_time"] = event.timestamp
        session.__pydantic_fields_set__.add("last_update_time")

    @staticmethod
    def _persistable_delta(event: Event) -> dict[str, Any]:
        """The event's state delta without ``temp:`` keys."""
        return {
            k: v
            for k, v in event.actions.state_delta.items()
            if not k.startswith(State.TEMP_PREFIX)
        }

    async def close(self) -> None:  # noqa: B027 - optional hook
        """Releases connections held by the service."""


__all__ = [
    "DEFAULT_LEASE_TTL",
    "BaseSessionService",
    "GetSessionConfig",
    "ListSessionsResponse",
    "SessionNotFoundError",
    "mark_turn_ending",
    "release_open_turns",
    "session_lease",
    "session_seq",
    "set_session_seq",
]
