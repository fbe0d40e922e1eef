"""Turn leases: one turn at a time writes to a session (see ``BaseSessionService.turn``).

A service that leases its sessions mixes in :class:`LeasedTurns` and provides the three
store operations of :class:`LeaseStore` (claim, renew, release). This module holds what
every such service shares: the lease's life in a turn (claimed on enter, waiting by
polling, renewed by a timer, released on exit), the turns of this process that hold a
lease, and the rule deciding why a write was refused.

A store whose every lease holder is a turn of this process (``_renews_own_leases``, the
in-memory service) needs no timer: it asks :func:`turn_is_live` whether the holder of a
lease still runs, and renews the lease of a live one itself when it judges it.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import os
import threading
import time
import weakref
from collections.abc import Coroutine
from contextlib import AbstractAsyncContextManager
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from pyadk.sessions.errors import (
    SessionBusyError,
    SessionConflictError,
    session_busy_error,
    stale_session_error,
)
from pyadk.sessions.session import Session

if TYPE_CHECKING:
    from pyadk.events.event import Event

logger = logging.getLogger(__name__)

DEFAULT_LEASE_TTL = 60.0
"""Seconds a turn's lease outlives its last renewal (how long a crashed turn blocks)."""

_LEASE_ATTR = "_pyadk_lease"
"""Where a Session object inside a turn keeps its lease: (owner, ttl) (not a field)."""


def session_lease(session: Session) -> tuple[str, float] | None:
    """(owner, ttl) of the turn lease ``session`` holds, or None outside a turn."""
    return lease_in(session.__dict__)


def lease_in(values: dict[str, Any]) -> tuple[str, float] | None:
    """:func:`session_lease` of the session whose ``__dict__`` is ``values``."""
    value = values.get(_LEASE_ATTR)
    return value if isinstance(value, tuple) else None


def writer_refusal(
    app_name: str,
    user_id: str,
    session_id: str,
    *,
    lease: tuple[str, float] | None,
    owner: str | None,
    expires: float | None,
    now: float,
    expected_seq: int,
    actual_seq: int,
) -> SessionConflictError | None:
    """Why a writer may not append, or None if it may.

    ``lease`` is the writer's own (from :func:`session_lease`), ``owner`` and
    ``expires`` the stored lease, ``expected_seq`` the events the writer has seen and
    ``actual_seq`` the events stored. A writer inside a turn needs its own lease (else
    its turn lost it); any other writer needs the session free of live leases; both
    must have seen every event.
    """
    live = owner is not None and expires is not None and expires > now
    if lease is not None and owner != lease[0]:
        return session_busy_error(
            session_id, owner if live else None, expires if live else None, now, lost=True
        )
    if lease is None and live:
        return session_busy_error(session_id, owner, expires, now)
    if expected_seq != actual_seq:
        return stale_session_error(app_name, user_id, session_id, expected_seq, actual_seq)
    return None


class LeaseStore(Protocol):
    """The store operations a :class:`LeasedTurns` service provides."""

    async def _claim_lease(self, session: Session, owner: str, ttl: float) -> None:
        """Takes the lease, or raises SessionBusyError / StaleSessionError /
        SessionNotFoundError, writing nothing."""

    async def _renew_lease(self, session: Session, owner: str, ttl: float) -> bool:
        """Extends the lease ``owner`` holds; False if it does not hold it any more."""

    async def _release_lease(self, session: Session, owner: str) -> None:
        """Gives the lease up (if ``owner`` still holds it)."""

    async def _claim_lease_and_append(
        self, session: Session, owner: str, ttl: float, event: Event
    ) -> bool:
        """:meth:`_claim_lease`; True when ``event`` was also stored with the claim."""

    async def append_event(self, session: Session, event: Event) -> Event:
        """Stores ``event`` (the session service's own append)."""


class LeasedTurns:
    """Mixin of the session services that lease sessions to turns: :meth:`turn`.

    The class provides the :class:`LeaseStore` operations and calls
    :meth:`_set_lease_policy` from its constructor.
    """

    lease_ttl: float
    lease_wait: float

    _renews_own_leases: ClassVar[bool] = False
    """True for a store whose every lease holder is a turn of this process: it judges a
    stored lease by its holder (:func:`turn_is_live`: a live turn's lease does not
    expire), and its turns run no renewal timer. False: turns renew their leases."""

    async def _claim_lease_and_append(
        self, session: Session, owner: str, ttl: float, event: Event
    ) -> bool:
        """Claims the lease only (False: the caller appends ``event``). A store that can
        append the turn's first event in the claim's transaction overrides this."""
        store: LeaseStore = self  # type: ignore[assignment]
        await store._claim_lease(session, owner, ttl)
        return False

    def _set_lease_policy(self, lease_ttl: float, lease_wait: float) -> None:
        """Sets ``lease_ttl`` and ``lease_wait`` (constructor arguments)."""
        _check_policy(lease_ttl, lease_wait)
        self.lease_ttl = lease_ttl
        self.lease_wait = lease_wait

    def turn(
        self,
        session: Session,
        *,
        invocation_id: str,
        ttl: float | None = None,
        wait: float | None = None,
        first_event: Event | None = None,
    ) -> AbstractAsyncContextManager[Session]:
        """Holds the session's lease for one turn (see :meth:`BaseSessionService.turn`).

        ``first_event`` (the turn's user message) is appended as the lease is taken:
        in the same transaction where the store allows it, and not at all if the
        session cannot be claimed."""
        store: LeaseStore = self  # type: ignore[assignment]
        return _LeasedTurn(
            store,
            session,
            invocation_id=invocation_id,
            ttl=self.lease_ttl if ttl is None else ttl,
            wait=self.lease_wait if wait is None else wait,
            first_event=first_event,
            renew=not self._renews_own_leases,
        )


def _check_policy(ttl: float, wait: float) -> None:
    """Raises ValueError unless ``ttl`` is positive and ``wait`` 0 or more (seconds)."""
    if ttl <= 0:
        raise ValueError(f"The lease ttl must be positive, got {ttl}.")
    if wait < 0:
        raise ValueError(f"The lease wait must be 0 or more seconds, got {wait}.")


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


def turn_is_live(owner: str) -> bool:
    """Whether ``owner`` is a turn of this process that still holds its lease: entered,
    not finished, not garbage-collected, and its event loop running (blocked in a long
    call included; a loop that stopped or closed runs the turn no more).

    Exactly the turns whose renewal timer would still fire, less those only that timer
    kept alive. Safe from any thread."""
    turn = _open_turns.get(owner)
    if turn is None or turn._done:
        return False
    loop = turn._loop
    return loop is not None and loop.is_running()


async def release_open_turns(store: LeaseStore) -> None:
    """Releases the leases that turns of ``store`` still hold (when it closes), so that
    a turn abandoned by its caller does not keep its session busy for the lease ttl."""
    with _open_turns_lock:
        turns = [t for t in _open_turns.values() if t._store is store and not t._done]
    for turn in turns:
        await turn._finish()


class _LeasedTurn:
    """A turn lease: claimed on enter (waiting up to ``wait`` s), renewed, released.

    ``renew=False``: no renewal timer (the store renews the leases of live turns itself,
    see :func:`turn_is_live`)."""

    _FIRST_POLL = 0.02
    _MAX_POLL = 0.5

    def __init__(
        self,
        store: LeaseStore,
        session: Session,
        *,
        invocation_id: str,
        ttl: float,
        wait: float,
        first_event: Event | None = None,
        renew: bool = True,
    ) -> None:
        _check_policy(ttl, wait)
        self._store = store
        self._session = session
        self._first_event = first_event
        self._owner = f"{invocation_id}/{_PROCESS_TAG}{next(_turn_numbers)}"
        self._ttl = ttl
        self._wait = wait
        self._renew_by_timer = renew
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
        appended = False
        while True:
            try:
                appended = await self._claim(self._first_event)
                break
            except asyncio.CancelledError:
                # The claim may still commit (a store's thread finishes what it began):
                # give the lease back, or the session stays busy for the whole ttl.
                _background(self._store._release_lease(self._session, self._owner))
                raise
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
        self._loop = loop  # before it is registered: turn_is_live reads it
        _open_turns_lock.acquire()  # not `with`: two special-method lookups less
        try:
            _open_turns[self._owner] = self
        finally:
            _open_turns_lock.release()
        if self._renew_by_timer:
            self._schedule_renewal()
        if self._first_event is not None and not appended:
            try:
                await self._store.append_event(self._session, self._first_event)
            except BaseException:
                await self._finish()
                raise
        return self._session

    async def _claim(self, first_event: Event | None) -> bool:
        """Claims the lease; True when ``first_event`` was appended with the claim."""
        store = self._store
        if first_event is not None:
            return await store._claim_lease_and_append(
                self._session, self._owner, self._ttl, first_event
            )
        await store._claim_lease(self._session, self._owner, self._ttl)
        return False

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
                _open_turns_lock.acquire()
                try:
                    _open_turns.pop(self._owner, None)
                finally:
                    _open_turns_lock.release()


_releases: set[asyncio.Task[None]] = set()
"""Releases running in the background (kept here until done, as asyncio asks)."""


def _background(release: Coroutine[Any, Any, None]) -> None:
    """Runs ``release`` in a task of its own, logging (not raising) its failure."""

    async def run() -> None:
        try:
            await release
        except Exception:  # it expires after its ttl
            logger.warning("Could not release a lease after a cancelled claim", exc_info=True)

    task = asyncio.get_running_loop().create_task(run())
    _releases.add(task)
    task.add_done_callback(_releases.discard)


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
