"""SqlSessionService: the session-service API over the SQL store, for any transport.

Subclasses provide :meth:`_write` and :meth:`_read`, which run a synchronous store
function in a transaction without blocking the event loop.

A turn reads only what it has not seen: the service keeps the decoded events of the
sessions it recently ran turns on (:mod:`pyadk.sessions._run_cache`), a Runner's load
costs no database round trip when the session is cached, and the turn's lease claim
reads, in the same transaction, the events and state the cached view missed.
"""

from __future__ import annotations

import abc
import functools
import json
import time
from collections.abc import Callable
from typing import Any, TypeVar

from pyadk.events.event import Event
from pyadk.sessions import _sql_store as store
from pyadk.sessions._leases import LeasedTurns, session_lease
from pyadk.sessions._run_cache import RunCache, View
from pyadk.sessions._sql_schema import Executor
from pyadk.sessions.base_session_service import (
    BaseSessionService,
    GetSessionConfig,
    ListSessionsResponse,
    SessionNotFoundError,
    session_seq,
)
from pyadk.sessions.base_session_service import set_session_seq as _set_seq
from pyadk.sessions.errors import foreign_session_error
from pyadk.sessions.session import Session
from pyadk.sessions.state import State
from pyadk.utils.ids import random_uuid4

T = TypeVar("T")

DEFAULT_CACHED_EVENTS = 10_000
"""Default ``cached_events``: decoded events of recent sessions a SQL service keeps."""

_RUN_VIEW_ATTR = "_pyadk_run_view"
"""Where a Session object loaded for a turn keeps (incarnation, id of the object): its
turn's claim may bring it up to date instead of refusing it as stale."""


class PagedListSessionsResponse(ListSessionsResponse):
    """One page of a user's sessions; pass ``next_page_token`` to get the next one."""

    next_page_token: str | None = None


def _event_body(event: Event, delta: dict[str, Any]) -> str:
    """The event as stored: camelCase JSON, ``temp:`` keys left out of its delta."""
    if delta != event.actions.state_delta:
        actions = event.actions.model_copy(update={"state_delta": delta})
        event = event.model_copy(update={"actions": actions})
    return event.model_dump_json(by_alias=True, exclude_none=True)


class SqlSessionService(LeasedTurns, BaseSessionService, abc.ABC):
    """Event-sourced sessions in a SQL database (see :mod:`pyadk.sessions._sql_store`).

    Appends are checked against the sequence number the session object last saw: if
    another writer appended first, :class:`StaleSessionError` is raised and nothing is
    written. A turn (:meth:`turn`, which the Runner uses) holds the session's lease
    (``lease_ttl``, ``lease_wait``): other writers get
    :class:`~pyadk.sessions.SessionBusyError` until it ends. ``list_sessions`` pages
    with ``page_size`` / ``page_token``.
    """

    _cache: RunCache

    def _set_policies(self, lease_ttl: float, lease_wait: float, cached_events: int) -> None:
        """Sets the lease policy and the size of the run cache (constructor arguments)."""
        self._set_lease_policy(lease_ttl, lease_wait)
        self._cache = RunCache(cached_events)

    @abc.abstractmethod
    async def _write(self, fn: Callable[[Executor], T]) -> T:
        """Runs ``fn`` in a write transaction (committed before this returns)."""

    @abc.abstractmethod
    async def _read(self, fn: Callable[[Executor], T]) -> T:
        """Runs ``fn`` in a read-only transaction that sees one consistent snapshot."""

    async def create_session(
        self,
        *,
        app_name: str,
        user_id: str,
        state: dict[str, Any] | None = None,
        session_id: str | None = None,
    ) -> Session:
        sid = (session_id or "").strip() or random_uuid4()
        kept = {k: v for k, v in (state or {}).items() if not k.startswith(State.TEMP_PREFIX)}
        encoded = store.encode_state(kept)
        now = time.time()
        stored = await self._write(
            lambda ex: store.create_session(ex, app_name, user_id, sid, encoded, now)
        )
        self._cache.put(
            (app_name, user_id, sid), View(stored.incarnation, 0, now, dict(stored.state))
        )
        return self._session(app_name, user_id, stored)

    async def get_session(
        self,
        *,
        app_name: str,
        user_id: str,
        session_id: str,
        config: GetSessionConfig | None = None,
    ) -> Session | None:
        recent = config.num_recent_events if config else None
        after = config.after_timestamp if config else None
        stored = await self._read(
            lambda ex: store.load_session(
                ex,
                app_name,
                user_id,
                session_id,
                num_recent_events=recent,
                after_timestamp=after,
            )
        )
        return None if stored is None else self._session(app_name, user_id, stored)

    async def _load_session_for_run(
        self, *, app_name: str, user_id: str, session_id: str
    ) -> Session | None:
        """The session from the run cache (no round trip), else from the database.

        A cached view may have missed what other services wrote since: the turn's
        claim (:meth:`_claim_lease`) brings the object up to date."""
        key = (app_name, user_id, session_id)
        snapshot = self._cache.snapshot(key)
        if snapshot is None:
            stored = await self._read(
                lambda ex: store.load_session(ex, app_name, user_id, session_id)
            )
            if stored is None:
                return None
            view = View(stored.incarnation, stored.seq, stored.update_time, stored.state)
            view.events.extend(stored.bodies)
            self._cache.put(key, view)
            snapshot = self._cache.snapshot(key)
            if snapshot is None:  # the cache is off
                session = self._session(app_name, user_id, stored)
                object.__setattr__(session, _RUN_VIEW_ATTR, (stored.incarnation, id(session)))
                return session
        session = Session.model_construct(
            id=session_id,
            app_name=app_name,
            user_id=user_id,
            state=store.decode_state(snapshot.state),
            events=snapshot.events,
            last_update_time=snapshot.update_time,
        )
        _set_seq(session, snapshot.seq)
        object.__setattr__(session, _RUN_VIEW_ATTR, (snapshot.incarnation, id(session)))
        return session

    async def list_sessions(
        self,
        *,
        app_name: str,
        user_id: str,
        page_size: int | None = None,
        page_token: str | None = None,
    ) -> PagedListSessionsResponse:
        """The user's sessions in creation order, without events or state.

        Without ``page_size`` every session is returned; with it, at most that many,
        and ``next_page_token`` is set while more remain.
        """
        if page_size is not None and page_size < 1:
            raise ValueError(f"page_size must be at least 1, got {page_size}.")
        after = _parse_page_token(page_token)
        limit = None if page_size is None else page_size + 1
        rows = await self._read(
            lambda ex: store.list_sessions(ex, app_name, user_id, after_pk=after, limit=limit)
        )
        next_token = None
        if page_size is not None and len(rows) > page_size:
            rows = rows[:page_size]
            next_token = str(rows[-1][0])
        sessions = [
            Session.model_construct(
                id=sid,
                app_name=app_name,
                user_id=user_id,
                state={},
                events=[],
                last_update_time=update_time,
            )
            for _, sid, update_time in rows
        ]
        return PagedListSessionsResponse(sessions=sessions, next_page_token=next_token)

    async def delete_session(self, *, app_name: str, user_id: str, session_id: str) -> None:
        await self._write(lambda ex: store.delete_session(ex, app_name, user_id, session_id))
        self._cache.drop((app_name, user_id, session_id))

    async def _claim_lease(self, session: Session, owner: str, ttl: float) -> None:
        app_name, user_id, sid = session.app_name, session.user_id, session.id
        run_view = session.__dict__.get(_RUN_VIEW_ATTR)
        seen = session_seq(session)
        if run_view is not None and run_view[1] == id(session) and seen is not None:
            await self._claim_and_catch_up(session, owner, ttl, run_view[0], seen)
            return
        if seen is None:
            seen = await self._infer_seq(session)
        expected = seen
        await self._write(
            lambda ex: store.claim_lease(
                ex, app_name, user_id, sid, expected_seq=expected, owner=owner, ttl=ttl
            )
        )
        _set_seq(session, expected)

    async def _claim_lease_and_append(
        self, session: Session, owner: str, ttl: float, event: Event
    ) -> bool:
        """:meth:`_claim_lease`, and the turn's first event appended in the same
        transaction (one round trip less). False when ``session`` was not loaded for a
        turn, or a subclass has its own :meth:`append_event` (which must see the event):
        then only the lease is claimed, and the caller appends the event."""
        run_view = session.__dict__.get(_RUN_VIEW_ATTR)
        seen = session_seq(session)
        if (
            run_view is None
            or run_view[1] != id(session)
            or seen is None
            or event.partial
            or type(self).append_event is not SqlSessionService.append_event
        ):
            await self._claim_lease(session, owner, ttl)
            return False
        incarnation = run_view[0]
        claim = _claim_op(session, owner, ttl, incarnation, seen)
        append = _PreparedAppend(session, event)

        def claim_and_append(ex: Executor) -> tuple[store.CaughtUp, tuple[store.Incarnation, int]]:
            caught = claim(ex)
            return caught, append.write(ex, expected_seq=caught.seq, lease=(owner, ttl))

        caught, (stored_as, seq) = await self._claimed(session, claim_and_append)
        self._catch_up(session, caught, incarnation, seen)
        self._appended(append, stored_as, seq)
        return True

    async def _claimed(self, session: Session, claim: Callable[[Executor], T]) -> T:
        """``claim`` in a write transaction; a session found gone leaves the cache."""
        try:
            return await self._write(claim)
        except SessionNotFoundError:
            self._cache.drop((session.app_name, session.user_id, session.id))
            raise

    async def _claim_and_catch_up(
        self, session: Session, owner: str, ttl: float, incarnation: store.Incarnation, seen: int
    ) -> None:
        """Claims the lease for a session object loaded for a turn, and adds to it what
        it missed (nothing has been done with it yet)."""
        caught = await self._claimed(session, _claim_op(session, owner, ttl, incarnation, seen))
        self._catch_up(session, caught, incarnation, seen)

    def _catch_up(
        self,
        session: Session,
        caught: store.CaughtUp,
        incarnation: store.Incarnation,
        seen: int,
    ) -> None:
        """Adds to a session object loaded for a turn what its claim found it missed."""
        key = session.app_name, session.user_id, session.id
        missed = [Event.model_validate_json(body) for body in caught.bodies]
        if caught.reset:
            session.events[:] = missed
            view = View(caught.incarnation, caught.seq, caught.update_time, caught.state)
            view.events.extend(missed)
            view.decoded_upto = len(missed)
            self._cache.put(key, view)
        else:
            session.events.extend(missed)
            self._cache.extend(
                key,
                incarnation,
                seen,
                list(missed),
                update_time=caught.update_time,
                state=caught.state,
                replace_state=True,
            )
        session.state.clear()
        session.state.update(store.decode_state(caught.state))
        session.last_update_time = caught.update_time
        _set_seq(session, caught.seq)
        session.__dict__.pop(_RUN_VIEW_ATTR, None)

    async def _renew_lease(self, session: Session, owner: str, ttl: float) -> bool:
        app_name, user_id, sid = session.app_name, session.user_id, session.id
        return await self._write(
            lambda ex: store.renew_lease(ex, app_name, user_id, sid, owner=owner, ttl=ttl)
        )

    async def _release_lease(self, session: Session, owner: str) -> None:
        app_name, user_id, sid = session.app_name, session.user_id, session.id
        await self._write(lambda ex: store.release_lease(ex, app_name, user_id, sid, owner=owner))

    async def append_event(self, session: Session, event: Event) -> Event:
        """Stores ``event`` (committed before this returns), then applies it to ``session``.

        Raises StaleSessionError if another writer appended to the session since this
        object was loaded, SessionBusyError if another turn holds the session's lease,
        SessionNotFoundError if the session does not exist, and TypeError if a state
        value cannot be stored as JSON; in each case nothing is written and ``session``
        is unchanged. An append through a session object inside a :meth:`turn` renews
        the turn's lease.
        """
        if event.partial:
            return event
        append = _PreparedAppend(session, event)
        expected = session_seq(session)
        if expected is None:
            expected = await self._infer_seq(session)
        lease = session_lease(session)
        stored_as, seq = await self._write(
            lambda ex: append.write(ex, expected_seq=expected, lease=lease)
        )
        self._appended(append, stored_as, seq)
        return event

    def _appended(self, append: _PreparedAppend, incarnation: store.Incarnation, seq: int) -> None:
        """Applies a stored event to its session object and to the run cache."""
        session, event = append.session, append.event
        self._apply_to_session(session, event)
        _set_seq(session, seq)
        # The view keeps the stored JSON, decoded when a later turn needs it: never
        # the caller's object, which the caller may still change.
        self._cache.extend(
            (session.app_name, session.user_id, session.id),
            incarnation,
            seq - 1,
            [append.body],
            update_time=event.timestamp,
            state=append.encoded,
        )

    async def _infer_seq(self, session: Session) -> int:
        """The seq of a session object not loaded by this service: the store's head,
        provided the object's last event is the stored last event."""
        app_name, user_id, sid = session.app_name, session.user_id, session.id
        seq, body = await self._read(lambda ex: store.head_event_body(ex, app_name, user_id, sid))
        stored_last = json.loads(body)["id"] if body else None
        own_last = session.events[-1].id if session.events else None
        if stored_last != own_last:
            raise foreign_session_error(session, seq)
        return seq

    @staticmethod
    def _session(app_name: str, user_id: str, stored: store.StoredSession) -> Session:
        session = Session.model_construct(
            id=stored.id,
            app_name=app_name,
            user_id=user_id,
            state=store.decode_state(stored.state),
            events=[Event.model_validate_json(body) for body in stored.bodies],
            last_update_time=stored.update_time,
        )
        _set_seq(session, stored.seq)
        return session


def _parse_page_token(token: str | None) -> int:
    if token is None or token == "":
        return 0
    try:
        return int(token)
    except ValueError:
        raise ValueError(
            f"Invalid page_token {token!r}: pass the next_page_token of a previous page."
        ) from None


class _PreparedAppend:
    """An event of a session ready to store: its JSON body and encoded state delta."""

    __slots__ = ("body", "encoded", "event", "session")

    def __init__(self, session: Session, event: Event) -> None:
        delta = BaseSessionService._persistable_delta(event)
        self.session, self.event = session, event
        self.encoded = store.encode_state(delta)
        self.body = _event_body(event, delta)

    def write(
        self, ex: Executor, *, expected_seq: int, lease: tuple[str, float] | None
    ) -> tuple[store.Incarnation, int]:
        """Stores the event (see :func:`store.append_event`): (incarnation, its seq)."""
        session = self.session
        return store.append_event(
            ex,
            session.app_name,
            session.user_id,
            session.id,
            expected_seq=expected_seq,
            timestamp=self.event.timestamp,
            body=self.body,
            delta=self.encoded,
            lease=lease,
        )


def _claim_op(
    session: Session, owner: str, ttl: float, incarnation: store.Incarnation, seen: int
) -> Callable[[Executor], store.CaughtUp]:
    """The store call that claims a turn's lease and reads what ``session`` missed."""
    return functools.partial(
        store.claim_and_catch_up,
        app_name=session.app_name,
        user_id=session.user_id,
        session_id=session.id,
        owner=owner,
        ttl=ttl,
        incarnation=incarnation,
        seen=seen,
    )
