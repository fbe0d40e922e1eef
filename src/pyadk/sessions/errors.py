"""Typed errors raised by session services."""

from __future__ import annotations


class SessionExistsError(ValueError):
    """``create_session`` was given an id that the (app, user) already uses."""


class StaleSessionError(ValueError):
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


class SchemaVersionError(RuntimeError):
    """The database's session schema is newer than this pyadk understands."""


__all__ = ["SchemaVersionError", "SessionExistsError", "StaleSessionError"]
