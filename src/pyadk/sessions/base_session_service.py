"""BaseSessionService: the contract of every session store."""

from __future__ import annotations

import abc
import asyncio
import contextlib
import itertools
import logging
import os
import threading
import time
import weakref
from contextlib import AbstractAsyncContextManager
from typing import Any, Protocol

from pydantic import BaseModel, Field

from pyadk.events.event import Event
from pyadk.sessions.errors import SessionBusyError
from pyadk.sessions.session import Session
from pyadk.sessions.state import State

logger = logging.getLogger(__name__)

DEFAULT_LEASE_TTL = 60.0
"""Seconds a turn's lease outlives its last renewal (how long a crashed turn blocks)."""

_SEQ_ATTR = "_pyadk_seq"
"""Where a loaded Session object keeps the sequence number it has seen (not a field)."""

_LEASE_ATTR = "_pyadk_lease"
"""Where a Session object inside a turn keeps its lease: (owner, ttl) (not a field)."""


class GetSessionConfig(BaseModel):
    """Limits what ``get_session`` loads: the latest N events and/or those after a time.

    ``num_recent_events`` of None or 0 loads every event (as google-adk does)."""

    num_recent_events: int | None = None
    after_timestamp: float | None = None


class ListSessionsResponse(BaseModel):
    """The sessions of a user (without their events)."""

    sessions: list[Session] = Field(default_factory=list)


class SessionNotFoundError(ValueError):
    """The session (app, user, id) does not exist."""


def session_seq(session: Session) -> int | None:
    """The number of stored events this session object has seen, if a service set it."""
    value = session.__dict__.get(_SEQ_ATTR)
    return value if isinstance(value, int) else None


def set_session_seq(session: Session, seq: int) -> None:
    """Records on ``session`` that it has seen ``seq`` stored events."""
    object.__setattr__(session, _SEQ_ATTR, seq)


def session_lease(session: Session) -> tuple[str, float] | None:
    """(owner, ttl) of the turn lease ``session`` holds, or None outside a turn."""
    value = session.__dict__.get(_LEASE_ATTR)
    return value if isinstance(value, tuple) else None


class BaseSessionService(abc.ABC):
    """Stores sessions. Subclasses persist; :meth:`append_event` applies state deltas."""

    lease_ttl: float = DEFAULT_LEASE_TTL
    """Default ``ttl`` of :meth:`turn`: how long a crashed turn keeps its session."""
    lease_wait: float = 0.0
    """Default ``wait`` of :meth:`turn`: 0 refuses a busy session at once."""

    def _set_lease_policy(self, lease_ttl: float, lease_wait: float) -> None:
        """Sets :attr:`lease_ttl` and :attr:`lease_wait` (constructor arguments)."""
        if lease_ttl <= 0:
            raise ValueError(f"lease_ttl must be positive, got {lease_ttl}.")
        if lease_wait < 0:
            raise ValueError(f"lease_wait must be 0 or more seconds, got {lease_wait}.")
        self.lease_ttl = lease_ttl
        self.lease_wait = lease_wait

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
        delta = event.actions.state_delta
        if delta:
            session.state.update(delta)
        session.events.append(event)
        session.last_update_time = event.timestamp

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


class _LeaseStore(Protocol):
    """What a service provides to use :class:`_LeasedTurn` for :meth:`turn`."""

    async def _claim_lease(self, session: Session, owner: str, ttl: float) -> None:
        """Takes the lease, or raises SessionBusyError / StaleSessionError /
        SessionNotFoundError, writing nothing."""

    async def _renew_lease(self, session: Session, owner: str, ttl: float) -> bool:
        """Extends the lease ``owner`` holds; False if it does not hold it any more."""

    async def _release_lease(self, session: Session, owner: str) -> None:
        """Gives the lease up (if ``owner`` still holds it)."""


_PROCESS_TAG = os.urandom(6).hex()
_turn_numbers = itertools.count()
"""Lease owners are ``invocation_id/<process tag><n>``: unique even if ids repeat."""

_open_turns_lock = threading.Lock()
_open_turns: weakref.WeakValueDictionary[str, _LeasedTurn] = weakref.WeakValueDictionary()
"""The turns of this process that hold a lease, by lease owner."""


def mark_turn_ending(session: Session) -> None:
    """Records that the turn ``session`` is in is ending early (its caller stopped
    reading events): a turn of this process that it refuses waits for its release."""
    lease = session_lease(session)
    turn = _open_turns.get(lease[0]) if lease else None
    if turn is not None:
        turn._ending = True


async def release_open_turns(store: _LeaseStore) -> None:
    """Releases the leases that turns of ``store`` still hold (when it closes), so that
    a turn abandoned by its caller does not keep its session busy for the lease ttl."""
    with _open_turns_lock:
        turns = [t for t in _open_turns.values() if t._store is store and not t._done]
    for turn in turns:
        await turn._finish()


class _LeasedTurn:
    """A turn lease: claimed on enter (waiting up to ``wait`` s), renewed, released."""

    _FIRST_POLL = 0.02
    _MAX_POLL = 0.5

    def __init__(
        self,
        store: _LeaseStore,
        session: Session,
        *,
        invocation_id: str,
        ttl: float,
        wait: float,
    ) -> None:
        if ttl <= 0:
            raise ValueError(f"The lease ttl must be positive, got {ttl}.")
        if wait < 0:
            raise ValueError(f"The lease wait must be 0 or more seconds, got {wait}.")
        self._store = store
        self._session = session
        self._owner = f"{invocation_id}/{_PROCESS_TAG}{next(_turn_numbers)}"
        self._ttl = ttl
        self._wait = wait
        self._loop: asyncio.AbstractEventLoop | None = None
        self._renewal: asyncio.TimerHandle | asyncio.Task[None] | None = None
        self._ending = False  # its caller stopped reading: it is being closed
        self._done = False  # its lease was given up (or could not be)

    async def __aenter__(self) -> Session:
        if session_lease(self._session) is not None:
            raise RuntimeError(f"Session object {self._session.id!r} is already in a turn.")
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self._wait
        poll = self._FIRST_POLL
        while True:
            try:
                await self._store._claim_lease(self._session, self._owner, self._ttl)
                break
            except SessionBusyError as busy:
                if await _ending_turn_released(busy.lease_owner):
                    continue
                left = deadline - loop.time()
                if left <= 0:
                    raise
                if poll == self._FIRST_POLL:
                    logger.info(
                        "Session %r is busy (turn %s); waiting up to %.1f s",
                        self._session.id,
                        busy.owner,
                        left,
                    )
                await asyncio.sleep(min(poll, left, max(busy.retry_after or poll, 0.001)))
                poll = min(poll * 2, self._MAX_POLL)
        object.__setattr__(self._session, _LEASE_ATTR, (self._owner, self._ttl))
        with _open_turns_lock:
            _open_turns[self._owner] = self
        self._loop = loop
        self._schedule_renewal()
        return self._session

    def _schedule_renewal(self) -> None:
        """Renews the lease in ``ttl / 3`` seconds (a timer: a short turn costs no task)."""
        assert self._loop is not None
        self._renewal = self._loop.call_later(self._ttl / 3, self._start_renewal)

    def _start_renewal(self) -> None:
        assert self._loop is not None
        if self._done:
            return
        self._renewal = self._loop.create_task(self._renew())

    async def _renew(self) -> None:
        try:
            held = await self._store._renew_lease(self._session, self._owner, self._ttl)
        except Exception:
            logger.warning(
                "Could not renew the lease on session %r", self._session.id, exc_info=True
            )
            held = True  # try again at the next renewal
        if not held:
            logger.warning("Turn %s lost its lease on session %r", self._owner, self._session.id)
        elif not self._done:
            self._schedule_renewal()

    async def __aexit__(self, *exc_info: object) -> None:
        self._ending = True
        await self._finish()

    async def _finish(self) -> None:
        """Stops the renewals and releases the lease (once)."""
        if self._done:
            return
        renewal, self._renewal = self._renewal, None
        try:
            if renewal is not None and self._loop is not None:
                # (an unfinished renewal needs no waiting: it only extends a lease its
                # owner holds, so whichever of it and the release below commits first,
                # the lease ends released)
                if self._loop is asyncio.get_running_loop():
                    renewal.cancel()
                else:  # a turn of another thread's loop (Runner.run), ended by close()
                    with contextlib.suppress(RuntimeError):  # that loop is closed
                        self._loop.call_soon_threadsafe(renewal.cancel)
        finally:
            try:
                await self._store._release_lease(self._session, self._owner)
            except Exception:  # it expires after its ttl
                logger.warning(
                    "Could not release the lease on session %r", self._session.id, exc_info=True
                )
            finally:
                self._session.__dict__.pop(_LEASE_ATTR, None)
                self._done = True
                with _open_turns_lock:
                    _open_turns.pop(self._owner, None)


async def _ending_turn_released(owner: str | None) -> bool:
    """Whether the turn of this process holding a lease (``owner``) was ending, and has
    now released it: a caller that stopped reading a Runner's events abandons its run,
    which Python closes soon after, but not before the caller's next turn starts."""
    holder = _open_turns.get(owner) if owner else None
    if holder is None:
        return False
    for _ in range(3):  # lets the closing of runs abandoned in this loop begin
        await asyncio.sleep(0)
    if not holder._ending:
        return False
    deadline = time.monotonic() + holder._ttl
    while not holder._done and time.monotonic() < deadline:
        await asyncio.sleep(0.005)
    return holder._done
