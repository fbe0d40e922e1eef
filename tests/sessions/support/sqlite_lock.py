"""A write lock held on a new SQLite file by another connection, for the WAL tests."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest


def hold_write_lock(
    path: Path, monkeypatch: pytest.MonkeyPatch, release_when: Callable[[list[str]], bool]
) -> tuple[sqlite3.Connection, list[str]]:
    """Takes the write lock on the new file ``path`` from a connection of its own (the
    holder, returned to be closed) and traces every ``sqlite3.connect`` made from now on:
    the statements they run, in order (returned), and the lock is released after the one
    for which ``release_when(statements)`` first holds."""
    holder = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    holder.execute("BEGIN IMMEDIATE")
    statements: list[str] = []

    def trace(sql: str) -> None:
        statements.append(sql)
        if holder.in_transaction and release_when(statements):
            holder.execute("COMMIT")

    connect = sqlite3.connect

    def traced_connect(*args, **kwargs) -> sqlite3.Connection:  # type: ignore[no-untyped-def]
        conn = connect(*args, **kwargs)
        conn.set_trace_callback(trace)
        return conn

    monkeypatch.setattr(sqlite3, "connect", traced_connect)
    return holder, statements
