"""InMemorySessionService: sessions kept in process memory (tests, demos, servers).

Each stored event is kept in a compact encoding (:mod:`pyadk.sessions._event_codec`:
a few hundred bytes instead of a few KiB of pydantic objects), the source of truth.
Decoded :class:`Event` objects are kept only for the sessions that ran a turn
recently, up to ``cached_events`` of them (:mod:`pyadk.sessions._run_cache`), so that a
conversation's next turn decodes nothing: its cached view gets a copy of each event
appended to it.
"""

from __future__ import annotations

import copy
import itertools
import threading
import time
from typing import Any

from pyadk.events.event import Event
from pyadk.sessions._event_codec import Encoded, decode, encode, field_of
from pyadk.sessions._leases import (
    _LEASE_ATTR,
    DEFAULT_LEASE_TTL,
    LeasedTurns,
    session_lease,
    turn_is_live,
    writer_refusal,
)
from pyadk.sessions._run_cache import Incarnation, RunCache, View
from pyadk.sessions.base_session_service import (
    _SEQ_ATTR,
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
from pyadk.utils.fast_models import construct, copy_model, copy_value
from pyadk.utils.ids import random_uuid4

DEFAULT_CACHED_EVENTS = 1_000
"""Default ``cached_events`` of :class:`InMemorySessionService` (3-4 MiB of decoded
events at most, for short messages)."""

_serials = itertools.count(1)


class _StoredSession:
    """A session as the store keeps it (a plain class: cheaper to create at import
    than a dataclass)."""

    __slots__ = (
        "app_name",
        "events",
        "id",
        "incarnation",
        "last_event_id",
        "last_update_time",
        "lease_expires",
        "lease_owner",
        "lease_ttl",
        "state",
        "user_id",
        "viewed",
    )

    def __init__(
        self,
        *,
        id: str,
        app_name: str,
        user_id: str,
        state: dict[str, Any],
        incarnation: Incarnation,
    ) -> None:
        self.id = id
        self.app_name = app_name
        self.user_id = user_id
        self.state = state
        self.incarnation = incarnation
        self.events: list[Encoded] = []
        """Every event, encoded (the source of truth)."""
        self.viewed = False
        """Whether the run cache was ever given a view of it (if not, it has none)."""
        self.last_event_id: str | None = None
        self.last_update_time = time.time()
        self.lease_owner: str | None = None
        self.lease_expires = 0.0
        """When the lease expires unless its holder still runs (see ``_check_writer``)."""
        self.lease_ttl = 0.0
        """The ttl the lease was claimed with."""

    def hold(self, owner: str, ttl: float) -> None:
        """Gives the lease to ``owner`` (again) for ``ttl`` seconds from now."""
        self.lease_owner, self.lease_expires, self.lease_ttl = owner, time.time() + ttl, ttl


class InMemorySessionService(LeasedTurns, BaseSessionService):
    """Keeps sessions in memory.

    Each event is stored encoded (200-300 bytes for a short message): appending costs
    one encoding of the new event (and one copy when the session is cached), never
    anything for the history. The decoded events of the sessions that ran a turn
    recently are cached, at most ``cached_events`` of them (least recently run sessions
    dropped first; the session that ran last is always kept whole), so a conversation's
    next turn decodes nothing; a turn on a session that left the cache decodes its
    history once. ``cached_events=0`` keeps nothing decoded (least memory; every turn
    decodes its session's history). ``get_session`` returns new objects, so callers
    cannot change what is stored except through :meth:`append_event`. Like the SQL
    services, it refuses appends from a session object that missed other appends
    (``StaleSessionError``) and gives a turn (:meth:`turn`) the session to itself
    (``SessionBusyError`` for others); ``lease_ttl`` and ``lease_wait`` are the
    defaults of :meth:`turn`. Every lease is held by a turn of this process, so none
    needs a renewal timer: the lease of a turn still running never expires (even while
    a long call blocks its event loop); that of a turn gone without releasing it (its
    event loop stopped or closed) expires ``lease_ttl`` seconds after it was last
    claimed, appended to or seen held.
    """

    _renews_own_leases = True

    def __init__(
        self,
        *,
        lease_ttl: float = DEFAULT_LEASE_TTL,
        lease_wait: float = 0.0,
        cached_events: int = DEFAULT_CACHED_EVENTS,
    ) -> None:
        self._set_lease_policy(lease_ttl, lease_wait)
        # Runner.run drives each turn in its own thread and event loop: checks and
        # writes happen under this lock.
        self._lock = threading.Lock()
        self._sessions: dict[tuple[str, str, str], _StoredSession] = {}
        self._app_state: dict[str, dict[str, Any]] = {}
        self._user_state: dict[tuple[str, str], dict[str, Any]] = {}
        self._cache = RunCache(cached_events)

    async def create_session(
        self,
        *,
        app_name: str,
        user_id: str,
        state: dict[str, Any] | None = None,
        session_id: str | None = None,
    ) -> Session:
        sid = (session_id or "").strip() or random_uuid4()
        key = (app_name, user_id, sid)
        app_delta, user_delta, own = split_scoped_state(state or {}, copy_value)
        self._lock.acquire()  # not `with` (see append_event)
        try:
            if key in self._sessions:
                raise ValueError(
                    f"Session {sid!r} already exists for app {app_name!r}, user {user_id!r}."
                )
            self._app_state.setdefault(app_name, {}).update(app_delta)
            self._user_state.setdefault((app_name, user_id), {}).update(user_delta)
            stored = _StoredSession(
                id=sid,
                app_name=app_name,
                user_id=user_id,
                state=own,
                incarnation=(next(_serials), 0.0),
            )
            self._sessions[key] = stored
            return self._session(stored, [], 0)
        finally:
            self._lock.release()

    async def get_session(
        self,
        *,
        app_name: str,
        user_id: str,
        session_id: str,
        config: GetSessionConfig | None = None,
    ) -> Session | None:
        with self._lock:
            stored = self._sessions.get((app_name, user_id, session_id))
            if stored is None:
                return None
            picked = _pick(stored, config)
            session = self._session(stored, [], len(stored.events))
        session.events = [_decode(e) for e in picked]
        return session

    async def _load_session_for_run(
        self, *, app_name: str, user_id: str, session_id: str
    ) -> Session | None:
        """The session with its events decoded: those of the run cache (shared with it)
        when the session is cached, else decoded now and cached.

        A session without events is not cached: many sessions run one turn only."""
        key = (app_name, user_id, session_id)
        self._lock.acquire()  # not `with` (see append_event)
        try:
            stored = self._sessions.get(key)
            if stored is None:
                return None
            seq = len(stored.events)
            if not seq:
                return self._session(stored, [], 0)
            cached = self._cache.snapshot(key)
            if cached is not None and (cached.incarnation, cached.seq) == (stored.incarnation, seq):
                return self._session(stored, cached.events, seq)
            events = [_decode(e) for e in stored.events]
            view = View(stored.incarnation, seq, stored.last_update_time, {})
            view.events.extend(events)  # a list of its own: the turn appends to events
            view.decoded_upto = seq
            self._cache.put(key, view)
            stored.viewed = True
            return self._session(stored, events, seq)
        finally:
            self._lock.release()

    def _session(self, stored: _StoredSession, events: list[Event], seq: int) -> Session:
        """A Session object of ``stored`` with ``events`` and a copy of its merged state."""
        state = merge_scoped_state(
            self._app_state.get(stored.app_name, {}),
            self._user_state.get((stored.app_name, stored.user_id), {}),
            stored.state,
        )
        session = construct(
            Session,
            id=stored.id,
            app_name=stored.app_name,
            user_id=stored.user_id,
            state=copy_value(state) if state else {},
            events=events,
            last_update_time=stored.last_update_time,
        )
        set_session_seq(session, seq)
        return session

    async def list_sessions(self, *, app_name: str, user_id: str) -> ListSessionsResponse:
        with self._lock:
            rows = [
                (s.id, s.last_update_time)
                for (app, user, _), s in self._sessions.items()
                if app == app_name and user == user_id
            ]
        sessions = [
            Session.model_construct(
                id=sid,
                app_name=app_name,
                user_id=user_id,
                state={},
                events=[],
                last_update_time=update_time,
            )
            for sid, update_time in rows
        ]
        return ListSessionsResponse(sessions=sessions)

    async def delete_session(self, *, app_name: str, user_id: str, session_id: str) -> None:
        key = (app_name, user_id, session_id)
        with self._lock:
            self._sessions.pop(key, None)
            self._cache.drop(key)

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
        own_last = session.events[-1].id if session.events else None
        if stored.last_event_id != own_last:
            raise foreign_session_error(session, len(stored.events))
        return len(stored.events)

    def _check_writer(self, session: Session, stored: _StoredSession) -> None:
        """Raises (SessionBusyError, StaleSessionError) unless ``session`` may append.

        The lease of a turn still running is renewed first (its turns run no renewal
        timer): it is judged, and reported, as if renewed just now."""
        now = time.time()
        owner = stored.lease_owner
        if owner is not None and turn_is_live(owner):
            stored.lease_expires = now + stored.lease_ttl
        refusal = writer_refusal(
            session.app_name,
            session.user_id,
            session.id,
            lease=session_lease(session),
            owner=owner,
            expires=stored.lease_expires,
            now=now,
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
            stored.hold(owner, ttl)

    async def _renew_lease(self, session: Session, owner: str, ttl: float) -> bool:
        with self._lock:
            stored = self._sessions.get((session.app_name, session.user_id, session.id))
            if stored is None or stored.lease_owner != owner:
                return False
            stored.hold(owner, ttl)
            return True

    async def _release_lease(self, session: Session, owner: str) -> None:
        self._lock.acquire()  # not `with` (see append_event)
        try:
            stored = self._sessions.get((session.app_name, session.user_id, session.id))
            if stored is not None and stored.lease_owner == owner:
                stored.lease_owner, stored.lease_expires = None, 0.0
        finally:
            self._lock.release()

    async def _claim_lease_and_append(
        self, session: Session, owner: str, ttl: float, event: Event
    ) -> bool:
        """:meth:`_claim_lease`, and the turn's first event stored in the same locked
        step. False when a subclass has its own :meth:`append_event` (which must see the
        event): then only the lease is claimed, and the caller appends the event."""
        if event.partial or type(self).append_event is not InMemorySessionService.append_event:
            await self._claim_lease(session, owner, ttl)
            return False
        prepared = self._prepared(event)
        self._lock.acquire()  # not `with` (see append_event)
        try:
            stored = self._stored(session)
            self._check_writer(session, stored)
            stored.hold(owner, ttl)
            self._store(session, stored, event, prepared)
        finally:
            self._lock.release()
        self._apply_to_session(session, event)
        return True

    async def append_event(self, session: Session, event: Event) -> Event:
        """Stores a private copy of ``event`` (encoded) and applies it to ``session``.

        Raises SessionNotFoundError, StaleSessionError (the object missed other
        appends) or SessionBusyError (another turn holds the session), changing nothing.
        """
        if event.partial:
            return event
        prepared = self._prepared(event)
        values = session.__dict__  # the fields, the lease and the seq, read in one place
        lease = values.get(_LEASE_ATTR)  # lease_in(values): only pyadk sets it, a tuple
        lock = self._lock
        lock.acquire()  # not `with`: its two special-method lookups cost as much again
        try:
            stored = self._sessions.get((values["app_name"], values["user_id"], values["id"]))
            if stored is None:
                stored = self._stored(session)  # raises SessionNotFoundError
            if not (
                lease is not None
                and lease[0] == stored.lease_owner
                and values.get(_SEQ_ATTR) == len(stored.events)  # seq_in(values)
            ):  # else the turn's own writer, up to date: nothing to refuse
                self._check_writer(session, stored)
            self._store(session, stored, event, prepared)
            if lease is not None:
                stored.hold(*lease)  # an append renews its turn's lease
        finally:
            lock.release()
        self._apply_to_session(session, event)
        return event

    def _prepared(self, event: Event) -> _Prepared:
        """What storing ``event`` needs, made before taking the lock: the event as
        stored (without ``temp:`` keys), its encoding, and its state delta split by
        scope, the values copied (the state shares nothing with the caller's event)."""
        to_store = event
        delta = event.actions.state_delta
        scoped = None
        if delta:
            scoped = split_scoped_state(delta, copy_value)
            if sum(map(len, scoped)) != len(delta):  # temp: keys are not stored
                to_store = _with_state_delta(event, self._persistable_delta(event))
        return to_store, encode(to_store), scoped

    def _store(
        self, session: Session, stored: _StoredSession, event: Event, prepared: _Prepared
    ) -> None:
        """Stores a prepared event after the checks (under the lock)."""
        to_store, kept, scoped = prepared
        seen = len(stored.events)
        if scoped is not None:
            app_delta, user_delta, own = scoped
            if app_delta:
                self._app_state.setdefault(session.app_name, {}).update(app_delta)
            if user_delta:
                self._user_state.setdefault((session.app_name, session.user_id), {}).update(
                    user_delta
                )
            stored.state.update(own)
        stored.events.append(kept)
        stored.last_event_id = event.id
        stored.last_update_time = event.timestamp
        if stored.viewed:  # (a session never loaded for a run has no view to extend)
            key = (stored.app_name, stored.user_id, stored.id)
            if self._cache.holds(key, stored.incarnation, seen):
                # The cached view gets its own copy: never the caller's object, which the
                # caller may still change.
                self._cache.extend(
                    key,
                    stored.incarnation,
                    seen,
                    [copy_model(to_store)],
                    update_time=event.timestamp,
                )
        set_session_seq(session, seen + 1)


_Prepared = tuple[Event, Encoded, "tuple[dict[str, Any], dict[str, Any], dict[str, Any]] | None"]
"""An event ready to store: see :meth:`InMemorySessionService._prepared`."""


def _decode(encoded: Encoded) -> Event:
    """A new Event equal to the one that was encoded."""
    return decode(encoded, Event)


def _with_state_delta(event: Event, delta: dict[str, Any]) -> Event:
    """A shallow copy of ``event`` whose actions carry ``delta`` (same fields set)."""
    actions = copy.copy(event.actions)
    actions.__dict__["state_delta"] = delta
    event = copy.copy(event)
    event.__dict__["actions"] = actions
    return event


def _pick(stored: _StoredSession, config: GetSessionConfig | None) -> list[Encoded]:
    """The stored events ``config`` asks for (all of them without one)."""
    events = stored.events
    if config is None:
        return list(events)
    if config.after_timestamp is not None:
        after = config.after_timestamp
        events = [e for e in events if field_of(e, Event, "timestamp") >= after]
    if config.num_recent_events:
        return events[-config.num_recent_events :]
    return list(events)


__all__ = ["DEFAULT_CACHED_EVENTS", "InMemorySessionService", "State"]
