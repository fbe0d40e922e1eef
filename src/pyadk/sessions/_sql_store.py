"""The event-sourced session store, as synchronous functions over an :class:`Executor`.

A session row carries ``seq``, the number of events appended so far. Each append runs
in one transaction: it advances ``seq`` only if it still equals the value the writer
last saw (optimistic check), inserts the event with that new ``seq`` and upserts the
state keys of its delta. State is kept as key rows (session, user and app scopes), so
an append never reads the history nor rewrites the whole state.

A turn holds the session's lease (``lease_owner``, ``lease_expires``): while it is live,
only the owner's appends are accepted, and each renews it. Lease times use the
database's clock, so machines sharing a PostgreSQL server need not agree on the time.
A Runner's turn takes the lease and reads what its cached view of the session missed
in one transaction (:func:`claim_and_catch_up`).
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from typing import Any

from pydantic_core import to_jsonable_python

from pyadk.sessions._leases import writer_refusal
from pyadk.sessions._sql_schema import Executor, UniqueViolation
from pyadk.sessions.base_session_service import SessionNotFoundError
from pyadk.sessions.errors import SessionExistsError, StaleSessionError, session_busy_error
from pyadk.sessions.state_scopes import split_scoped_state

Incarnation = tuple[int, float]
"""(row key, creation time): which session of an id (ids can be deleted and reused)."""


@dataclass(frozen=True)
class StoredSession:
    """A session as read from the store (state values and events still as JSON)."""

    incarnation: Incarnation
    id: str
    seq: int
    update_time: float
    state: dict[str, str]
    """Merged state (``app:`` and ``user:`` keys prefixed), each value as JSON text."""
    bodies: list[str]


@dataclass(frozen=True)
class CaughtUp:
    """What a turn's claim read: the session now, and the events its object missed."""

    incarnation: Incarnation
    seq: int
    update_time: float
    state: dict[str, str]
    bodies: list[str]
    """The events after the object's ``seq`` (all of them when ``reset``)."""
    reset: bool
    """The object was of another incarnation of the session: start over."""


def encode_value(key: str, value: Any) -> str:
    """The JSON text of a state value; TypeError naming the key if it has none."""
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError):
        pass
    try:
        return json.dumps(to_jsonable_python(value), ensure_ascii=False, separators=(",", ":"))
    except Exception as exc:
        raise TypeError(
            f"State key {key!r} holds a {type(value).__name__}, which cannot be stored as "
            "JSON. Store plain data (str, numbers, bool, None, lists, dicts, pydantic "
            "models), or use a 'temp:' key for values that must not be persisted."
        ) from exc


_NOW = {
    "sqlite": "((julianday('now') - 2440587.5) * 86400.0)",
    "postgresql": "CAST(EXTRACT(EPOCH FROM clock_timestamp()) AS DOUBLE PRECISION)",
}
"""The database's current Unix time, as an SQL expression."""

_KEY = "app_name = :a AND user_id = :u AND id = :s"


def _now(ex: Executor) -> str:
    return _NOW[ex.dialect]


def _not_found(app_name: str, user_id: str, session_id: str) -> SessionNotFoundError:
    return SessionNotFoundError(
        f"Session {session_id!r} not found for app {app_name!r}, user {user_id!r}."
    )


def encode_state(state: dict[str, Any]) -> dict[str, str]:
    """Each value as JSON text (see :func:`encode_value`)."""
    return {key: encode_value(key, value) for key, value in state.items()}


def _upsert_state(
    ex: Executor, app_name: str, user_id: str, pk: int, state: dict[str, str]
) -> None:
    """Writes the JSON-encoded ``state`` keys (prefixed keys to the app/user scopes)."""
    app, user, own = split_scoped_state(state)
    if app:
        ex.executemany(
            "INSERT INTO pyadk_app_state (app_name, key, value) VALUES (:a, :k, :v) "
            "ON CONFLICT (app_name, key) DO UPDATE SET value = excluded.value",
            [{"a": app_name, "k": k, "v": v} for k, v in app.items()],
        )
    if user:
        ex.executemany(
            "INSERT INTO pyadk_user_state (app_name, user_id, key, value) "
            "VALUES (:a, :u, :k, :v) "
            "ON CONFLICT (app_name, user_id, key) DO UPDATE SET value = excluded.value",
            [{"a": app_name, "u": user_id, "k": k, "v": v} for k, v in user.items()],
        )
    if own:
        ex.executemany(
            "INSERT INTO pyadk_session_state (session_pk, key, value) VALUES (:pk, :k, :v) "
            "ON CONFLICT (session_pk, key) DO UPDATE SET value = excluded.value",
            [{"pk": pk, "k": k, "v": v} for k, v in own.items()],
        )


_READ_STATE = (
    "SELECT key, value FROM pyadk_session_state WHERE session_pk = :pk "
    "UNION ALL SELECT 'app:' || key, value FROM pyadk_app_state WHERE app_name = :a "
    "UNION ALL SELECT 'user:' || key, value FROM pyadk_user_state "
    "WHERE app_name = :a AND user_id = :u"
)
"""A session's merged state in one query (own keys never carry a scope prefix)."""


def _read_state(ex: Executor, app_name: str, user_id: str, pk: int) -> dict[str, str]:
    """The merged state, values as JSON text (see :func:`decode_state`)."""
    return dict(ex.query(_READ_STATE, {"pk": pk, "a": app_name, "u": user_id}))


def decode_state(state: dict[str, str]) -> dict[str, Any]:
    """State values decoded from their JSON text."""
    return {key: json.loads(value) for key, value in state.items()}


def _incarnation(pk: Any, create_time: Any) -> Incarnation:
    return int(pk), float(create_time or 0.0)


def create_session(
    ex: Executor, app_name: str, user_id: str, session_id: str, state: dict[str, str], now: float
) -> StoredSession:
    """Inserts a new session (``seq`` 0) and its initial (JSON-encoded) state."""
    try:
        rows = ex.query(
            "INSERT INTO pyadk_sessions (app_name, user_id, id, seq, create_time, update_time) "
            "VALUES (:a, :u, :s, 0, :t, :t) "
            "ON CONFLICT (app_name, user_id, id) DO NOTHING RETURNING pk",
            {"a": app_name, "u": user_id, "s": session_id, "t": now},
        )
    except UniqueViolation:
        rows = []
    if not rows:
        raise SessionExistsError(
            f"Session {session_id!r} already exists for app {app_name!r}, user {user_id!r}."
        )
    pk = int(rows[0][0])
    _upsert_state(ex, app_name, user_id, pk, state)
    state_now = _read_state(ex, app_name, user_id, pk)
    return StoredSession((pk, now), session_id, 0, now, state_now, [])


def load_session(
    ex: Executor,
    app_name: str,
    user_id: str,
    session_id: str,
    *,
    num_recent_events: int | None = None,
    after_timestamp: float | None = None,
) -> StoredSession | None:
    """The session with its merged state and (the selected) event bodies, or None."""
    rows = ex.query(
        f"SELECT pk, seq, update_time, create_time FROM pyadk_sessions WHERE {_KEY}",
        {"a": app_name, "u": user_id, "s": session_id},
    )
    if not rows:
        return None
    pk, seq, update_time = int(rows[0][0]), int(rows[0][1]), float(rows[0][2])
    where = "session_pk = :pk AND seq <= :seq"
    params: dict[str, Any] = {"pk": pk, "seq": seq}
    if after_timestamp is not None:
        where += " AND ts >= :after"
        params["after"] = after_timestamp
    if not num_recent_events:  # None or 0: every event, as google-adk does
        sql = f"SELECT body FROM pyadk_events WHERE {where} ORDER BY seq"
        bodies = [row[0] for row in ex.query(sql, params)]
    else:
        sql = f"SELECT body FROM pyadk_events WHERE {where} ORDER BY seq DESC LIMIT :n"
        bodies = [row[0] for row in reversed(ex.query(sql, {**params, "n": num_recent_events}))]
    state = _read_state(ex, app_name, user_id, pk)
    incarnation = _incarnation(pk, rows[0][3])
    return StoredSession(incarnation, session_id, seq, update_time, state, bodies)


def list_sessions(
    ex: Executor, app_name: str, user_id: str, *, after_pk: int, limit: int | None
) -> list[tuple[int, str, float]]:
    """(pk, id, update_time) of the user's sessions in creation order, after ``after_pk``."""
    sql = (
        "SELECT pk, id, update_time FROM pyadk_sessions "
        "WHERE app_name = :a AND user_id = :u AND pk > :after ORDER BY pk"
    )
    params: dict[str, Any] = {"a": app_name, "u": user_id, "after": after_pk}
    if limit is not None:
        sql += " LIMIT :n"
        params["n"] = limit
    return [(int(pk), sid, float(t)) for pk, sid, t in ex.query(sql, params)]


def delete_session(ex: Executor, app_name: str, user_id: str, session_id: str) -> None:
    """Deletes the session, its events and its own state (no error if missing)."""
    rows = ex.query(
        "DELETE FROM pyadk_sessions WHERE app_name = :a AND user_id = :u AND id = :s RETURNING pk",
        {"a": app_name, "u": user_id, "s": session_id},
    )
    for (pk,) in rows:
        ex.execute("DELETE FROM pyadk_events WHERE session_pk = :pk", {"pk": pk})
        ex.execute("DELETE FROM pyadk_session_state WHERE session_pk = :pk", {"pk": pk})


def head_event_body(
    ex: Executor, app_name: str, user_id: str, session_id: str
) -> tuple[int, str | None]:
    """(seq, body of the last event or None); SessionNotFoundError if missing."""
    rows = ex.query(
        "SELECT s.seq, e.body FROM pyadk_sessions s LEFT JOIN pyadk_events e "
        "ON e.session_pk = s.pk AND e.seq = s.seq "
        "WHERE s.app_name = :a AND s.user_id = :u AND s.id = :s",
        {"a": app_name, "u": user_id, "s": session_id},
    )
    if not rows:
        raise _not_found(app_name, user_id, session_id)
    return int(rows[0][0]), rows[0][1]


@functools.cache
def _append_sql(dialect: str, in_turn: bool) -> str:
    """The statement that advances ``seq`` (guarded by the lease) and stores the event,
    returning the session's (pk, seq, create_time); no row when the guard fails."""
    now = _NOW[dialect]
    if in_turn:
        renew, guard = f", lease_expires = {now} + :ttl", "lease_owner = :owner"
    else:
        renew, guard = "", f"(lease_owner IS NULL OR lease_expires <= {now})"
    advance = (
        f"UPDATE pyadk_sessions SET seq = seq + 1, update_time = :t{renew} "
        f"WHERE {_KEY} AND seq = :seq AND {guard} RETURNING pk, seq, create_time"
    )
    if dialect == "postgresql":  # one round trip: advance and insert together
        return (
            f"WITH head AS ({advance}), stored AS (INSERT INTO pyadk_events "
            "(session_pk, seq, ts, body) SELECT pk, seq, :t, :b FROM head) "
            "SELECT pk, seq, create_time FROM head"
        )
    return advance


def append_event(
    ex: Executor,
    app_name: str,
    user_id: str,
    session_id: str,
    *,
    expected_seq: int,
    timestamp: float,
    body: str,
    delta: dict[str, str],
    lease: tuple[str, float] | None = None,
) -> tuple[Incarnation, int]:
    """Appends one event after ``expected_seq``; returns the session's incarnation and
    the event's ``seq``.

    ``lease`` is the (owner, ttl) of the writer's turn, renewed by the append; without
    one, the append is accepted only while no turn holds a live lease. Raises
    StaleSessionError or SessionBusyError (writing nothing) when another writer appended
    first or holds the session.
    """
    params: dict[str, Any] = {
        "a": app_name,
        "u": user_id,
        "s": session_id,
        "seq": expected_seq,
        "t": timestamp,
        "b": body,
    }
    if lease is not None:
        params["owner"], params["ttl"] = lease
    try:
        rows = ex.query(_append_sql(ex.dialect, lease is not None), params)
        if rows and ex.dialect != "postgresql":
            ex.execute(
                "INSERT INTO pyadk_events (session_pk, seq, ts, body) VALUES (:pk, :seq, :t, :b)",
                {"pk": rows[0][0], "seq": rows[0][1], "t": timestamp, "b": body},
            )
    except UniqueViolation:  # cannot happen while seq is checked; never overwrite history
        raise StaleSessionError(
            f"Session {session_id!r} already has an event after #{expected_seq}.",
            session_id=session_id,
        ) from None
    if not rows:
        raise _refusal(ex, app_name, user_id, session_id, expected_seq, lease)
    pk, seq = int(rows[0][0]), int(rows[0][1])
    if delta:
        _upsert_state(ex, app_name, user_id, pk, delta)
    return _incarnation(pk, rows[0][2]), seq


def _refusal(
    ex: Executor,
    app_name: str,
    user_id: str,
    session_id: str,
    expected_seq: int | None,
    lease: tuple[str, float] | None,
) -> Exception:
    """Why a conditional write matched no row: not found, busy, lost lease or stale
    (``expected_seq`` None: the write did not check the sequence number)."""
    rows = ex.query(
        f"SELECT seq, lease_owner, lease_expires, {_now(ex)} FROM pyadk_sessions WHERE {_KEY}",
        {"a": app_name, "u": user_id, "s": session_id},
    )
    if not rows:
        return _not_found(app_name, user_id, session_id)
    actual, owner, expires, now = int(rows[0][0]), rows[0][1], rows[0][2], float(rows[0][3])
    expires = None if expires is None else float(expires)
    refusal = writer_refusal(
        app_name,
        user_id,
        session_id,
        lease=lease,
        owner=owner,
        expires=expires,
        now=now,
        expected_seq=actual if expected_seq is None else expected_seq,
        actual_seq=actual,
    )
    # None: a lease that expired between the write and this look (retrying will work)
    return refusal or session_busy_error(session_id, owner, expires, now)


def claim_lease(
    ex: Executor,
    app_name: str,
    user_id: str,
    session_id: str,
    *,
    expected_seq: int,
    owner: str,
    ttl: float,
) -> None:
    """Gives ``owner`` the session's lease for ``ttl`` seconds, provided no other live
    lease exists and the session still has ``expected_seq`` events; else raises
    SessionBusyError, StaleSessionError or SessionNotFoundError (writing nothing)."""
    rows = ex.query(
        _claim_sql(ex.dialect, checked=True),
        {"a": app_name, "u": user_id, "s": session_id, "seq": expected_seq, "owner": owner,
         "ttl": ttl},
    )  # fmt: skip
    if not rows:
        raise _refusal(ex, app_name, user_id, session_id, expected_seq, None)


def claim_and_catch_up(
    ex: Executor,
    app_name: str,
    user_id: str,
    session_id: str,
    *,
    owner: str,
    ttl: float,
    incarnation: Incarnation,
    seen: int,
) -> CaughtUp:
    """Gives ``owner`` the session's lease for ``ttl`` seconds, provided no other live
    lease exists (else raises SessionBusyError or SessionNotFoundError, writing
    nothing), and reads what a session object that has seen ``seen`` events of
    ``incarnation`` missed: the later events, and the whole current state."""
    rows = ex.query(
        _claim_sql(ex.dialect, checked=False),
        {"a": app_name, "u": user_id, "s": session_id, "owner": owner, "ttl": ttl},
    )
    if not rows:
        raise _refusal(ex, app_name, user_id, session_id, None, None)
    pk, seq, update_time = int(rows[0][0]), int(rows[0][1]), float(rows[0][2])
    now_incarnation = _incarnation(pk, rows[0][3])
    reset = now_incarnation != incarnation or seq < seen
    after = 0 if reset else seen
    bodies = (
        [
            row[0]
            for row in ex.query(
                "SELECT body FROM pyadk_events WHERE session_pk = :pk AND seq > :after "
                "AND seq <= :seq ORDER BY seq",
                {"pk": pk, "after": after, "seq": seq},
            )
        ]
        if seq > after
        else []
    )
    state = _read_state(ex, app_name, user_id, pk)
    return CaughtUp(now_incarnation, seq, update_time, state, bodies, reset)


@functools.cache
def _claim_sql(dialect: str, *, checked: bool) -> str:
    """Takes a free (or expired) lease, if ``checked`` only at sequence number ``:seq``."""
    now = _NOW[dialect]
    seq_guard = "AND seq = :seq " if checked else ""
    return (
        f"UPDATE pyadk_sessions SET lease_owner = :owner, lease_expires = {now} + :ttl "
        f"WHERE {_KEY} {seq_guard}AND (lease_owner IS NULL OR lease_expires <= {now}) "
        "RETURNING pk, seq, update_time, create_time"
    )


def renew_lease(
    ex: Executor, app_name: str, user_id: str, session_id: str, *, owner: str, ttl: float
) -> bool:
    """Extends ``owner``'s lease to ``ttl`` seconds from now; False if it lost it."""
    rows = ex.query(
        f"UPDATE pyadk_sessions SET lease_expires = {_now(ex)} + :ttl "
        f"WHERE {_KEY} AND lease_owner = :owner RETURNING pk",
        {"a": app_name, "u": user_id, "s": session_id, "owner": owner, "ttl": ttl},
    )
    return bool(rows)


def release_lease(
    ex: Executor, app_name: str, user_id: str, session_id: str, *, owner: str
) -> None:
    """Ends ``owner``'s lease (nothing happens if another turn holds the session)."""
    ex.execute(
        "UPDATE pyadk_sessions SET lease_owner = NULL, lease_expires = NULL "
        f"WHERE {_KEY} AND lease_owner = :owner",
        {"a": app_name, "u": user_id, "s": session_id, "owner": owner},
    )
