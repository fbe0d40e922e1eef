"""Switching a SQLite database to WAL mode, shared by the SQLite session services."""

from __future__ import annotations

import sqlite3
import time


def enable_wal(conn: sqlite3.Connection, path: str, timeout: float) -> None:
    """``PRAGMA journal_mode=WAL``, waiting up to ``timeout`` seconds for the lock.

    Switching a file still in rollback mode (a new one) takes a read lock and then
    upgrades it to a write lock; SQLite never calls the busy handler for that upgrade,
    so a connection racing another one switching the same file gets "database is
    locked" at once, whatever ``busy_timeout``. Such a connection retries here.
    """
    deadline = time.monotonic() + timeout
    while True:
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if exc.sqlite_errorcode & 0xFF != sqlite3.SQLITE_BUSY:
                raise
            if time.monotonic() >= deadline:
                raise sqlite3.OperationalError(
                    f"database is locked: could not switch {path!r} to WAL mode within "
                    f"busy_timeout ({timeout} s); another connection kept it locked."
                ) from exc
        time.sleep(0.005)
