"""Typed errors raised by session services."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyadk.sessions.session import Session


class SessionExistsError(ValueError):
    """``create_session`` was given an id that the (app, user) already uses."""


class SessionConflictError(ValueError):
    """Another writer holds or changed the session; nothing was written.

    The base of :class:`StaleSessionError` and :class:`SessionBusyError`: catch it to
    treat both as "retry later" (HTTP 409).
    """

    session_id: str


class StaleSessionError(SessionConflictError):
    """An append was refused: the session changed since this session object was loaded.

    Another writer (a second runner, process or machine) appended to the same session
    first. Nothing was written. Reload the session with ``get_session`` and retry the
    turn, or report a conflict to the caller (HTTP 409).
    """

    def __init__(
        self,
        message: str,
        *,
        session_id: str = "",
        expected_seq: int | None = None,
        actual_seq: int | None = None,
    ) -> None:
        super().__init__(message)
        self.session_id = session_id
        self.expected_seq = expected_seq
        self.actual_seq = actual_seq


class SessionBusyError(SessionConflictError):
    """A turn (or an append) was refused: another turn holds the session's lease.

    Raised before anything is written. ``owner`` is the invocation id of the turn that
    holds the session; its lease ends when that turn ends, or ``retry_after`` seconds
    from now if its process died (``expires_at`` is the same instant as a Unix time, by
    the store's clock). Retry later, answer HTTP 409 (with ``Retry-After``), or let the
    service wait for you (``lease_wait``). ``lease_owner`` is the lease as stored
    (the invocation id and a random suffix).
    """

    def __init__(
        self,
        message: str,
        *,
        session_id: str = "",
        owner: str | None = None,
        expires_at: float | None = None,
        retry_after: float | None = None,
        lease_owner: str | None = None,
    ) -> None:
        super().__init__(message)
        self.session_id = session_id
        self.owner = owner
        self.expires_at = expires_at
        self.retry_after = retry_after
        self.lease_owner = lease_owner


class SchemaVersionError(RuntimeError):
    """The database's session schema is newer than this pyadk understands."""


def stale_session_error(
    app_name: str, user_id: str, session_id: str, expected_seq: int, actual_seq: int
) -> StaleSessionError:
    """The error for a session object that has seen ``expected_seq`` of ``actual_seq``."""
    return StaleSessionError(
        f"Session {session_id!r} (app {app_name!r}, user {user_id!r}) was changed by "
        f"another writer: this session object has seen {expected_seq} events, the "
        f"store has {actual_seq}. Nothing was written; reload the session and retry.",
        session_id=session_id,
        expected_seq=expected_seq,
        actual_seq=actual_seq,
    )


def foreign_session_error(session: Session, actual_seq: int) -> StaleSessionError:
    """The error for a session object that this service did not load (no sequence
    number) and whose last event is not the stored last event."""
    return StaleSessionError(
        f"Session {session.id!r} (app {session.app_name!r}, user {session.user_id!r}) was "
        "not loaded from this service and its events differ from the stored ones. Load "
        "it with get_session before appending.",
        session_id=session.id,
        actual_seq=actual_seq,
    )


def session_busy_error(
    session_id: str,
    owner: str | None,
    expires_at: float | None,
    now: float,
    *,
    lost: bool = False,
) -> SessionBusyError:
    """The error for a session whose lease ``owner`` holds until ``expires_at``.

    ``owner`` is the stored lease owner (``invocation_id/token``); ``lost`` says the
    refused writer held the lease itself, and lost it after it expired.
    """
    invocation = owner.rsplit("/", 1)[0] if owner else None
    retry_after = max(0.0, expires_at - now) if expires_at is not None else None
    if lost:
        holder = f"turn {invocation!r}" if invocation else "nobody"
        message = (
            f"This turn's lease on session {session_id!r} expired and was lost (now held by "
            f"{holder}). Nothing was written. A turn's lease is renewed while it runs: "
            "was the event loop blocked for longer than the lease ttl?"
        )
    else:
        message = (
            f"Session {session_id!r} is busy: turn {invocation!r} is running on it "
            f"(its lease expires in {retry_after or 0.0:.1f} s unless renewed). Nothing "
            "was written; retry when that turn has ended."
        )
    return SessionBusyError(
        message,
        session_id=session_id,
        owner=invocation,
        expires_at=expires_at,
        retry_after=retry_after,
        lease_owner=owner,
    )


__all__ = [
    "SchemaVersionError",
    "SessionBusyError",
    "SessionConflictError",
    "SessionExistsError",
    "StaleSessionError",
]
