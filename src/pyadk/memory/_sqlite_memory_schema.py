"""The tables of SqliteMemoryService (the layout google-adk's SqliteMemoryService uses,
so either library reads a file the other wrote) and their creation."""

from __future__ import annotations

import sqlite3
from typing import Literal

FtsMode = Literal["auto", "on", "off"]

SCHEMA_VERSION = "1"

_TABLES = """
CREATE TABLE IF NOT EXISTS adk_memory_metadata (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS memory_events (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  app_name TEXT NOT NULL,
  user_id TEXT NOT NULL,
  session_id TEXT NOT NULL,
  event_id TEXT NOT NULL,
  author TEXT NOT NULL,
  timestamp REAL NOT NULL,
  content_json TEXT NOT NULL,
  search_text TEXT NOT NULL,
  UNIQUE(app_name, user_id, session_id, event_id)
);
CREATE INDEX IF NOT EXISTS idx_memory_events_scope
ON memory_events(app_name, user_id, timestamp DESC);
"""

# An external-content FTS5 index over memory_events.search_text, kept in step by triggers.
_FTS = """
CREATE VIRTUAL TABLE IF NOT EXISTS memory_events_fts USING fts5(
  search_text, content='memory_events', content_rowid='id', tokenize='unicode61'
);
CREATE TRIGGER IF NOT EXISTS memory_events_ai AFTER INSERT ON memory_events BEGIN
  INSERT INTO memory_events_fts(rowid, search_text) VALUES (new.id, new.search_text);
END;
CREATE TRIGGER IF NOT EXISTS memory_events_ad AFTER DELETE ON memory_events BEGIN
  INSERT INTO memory_events_fts(memory_events_fts, rowid, search_text)
  VALUES ('delete', old.id, old.search_text);
END;
CREATE TRIGGER IF NOT EXISTS memory_events_au AFTER UPDATE OF search_text ON memory_events
BEGIN
  INSERT INTO memory_events_fts(memory_events_fts, rowid, search_text)
  VALUES ('delete', old.id, old.search_text);
  INSERT INTO memory_events_fts(rowid, search_text) VALUES (new.id, new.search_text);
END;
"""


def prepare_schema(conn: sqlite3.Connection, fts: FtsMode, path: str) -> bool:
    """Creates the tables missing from the database (one ``BEGIN IMMEDIATE`` transaction)
    and checks its schema version; True when searches can use the FTS5 index.

    A read-only database is only checked."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        try:
            available = _create(conn, fts, path)
        except sqlite3.OperationalError as exc:
            if exc.sqlite_errorcode & 0xFF != sqlite3.SQLITE_READONLY:
                raise
            conn.execute("ROLLBACK")
            conn.execute("BEGIN")
            available = _check_read_only(conn, fts, path)
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
    return available


def _create(conn: sqlite3.Connection, fts: FtsMode, path: str) -> bool:
    for statement in _statements(_TABLES):
        conn.execute(statement)
    conn.execute(
        "INSERT OR IGNORE INTO adk_memory_metadata (key, value) VALUES ('schema_version', ?)",
        (SCHEMA_VERSION,),
    )
    _check_version(conn, path)
    if fts == "off":
        return False
    existed = _has_table(conn, "memory_events_fts")
    try:
        for statement in _statements(_FTS):
            conn.execute(statement)
    except sqlite3.OperationalError as exc:
        if "no such module" not in str(exc).lower():
            raise
        if fts == "on":
            raise RuntimeError(
                f"SqliteMemoryService(fts='on'): this SQLite build ({sqlite3.sqlite_version}) "
                "has no FTS5; use fts='auto' or 'off' to search with LIKE instead."
            ) from exc
        return False
    if not existed:  # index the rows written while there was no index
        conn.execute("INSERT INTO memory_events_fts(memory_events_fts) VALUES ('rebuild')")
    return True


def _check_read_only(conn: sqlite3.Connection, fts: FtsMode, path: str) -> bool:
    if not _has_table(conn, "memory_events"):
        raise RuntimeError(
            f"The read-only database {path!r} has no memories (no memory_events table)."
        )
    if _has_table(conn, "adk_memory_metadata"):
        _check_version(conn, path)
    has_index = _has_table(conn, "memory_events_fts")
    if fts == "on" and not has_index:
        raise RuntimeError(
            f"SqliteMemoryService(fts='on'): the read-only database {path!r} has no FTS5 "
            "index (memory_events_fts)."
        )
    return has_index and fts != "off"


def _check_version(conn: sqlite3.Connection, path: str) -> None:
    row = conn.execute(
        "SELECT value FROM adk_memory_metadata WHERE key = 'schema_version'"
    ).fetchone()
    if row is not None and row[0] != SCHEMA_VERSION:
        raise RuntimeError(
            f"The memory database {path!r} has schema version {row[0]}; this "
            f"SqliteMemoryService reads version {SCHEMA_VERSION}."
        )


def _has_table(conn: sqlite3.Connection, name: str) -> bool:
    query = "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?"
    return conn.execute(query, (name,)).fetchone() is not None


def _statements(script: str) -> list[str]:
    """The statements of ``script`` (``executescript`` would commit our transaction)."""
    statements: list[str] = []
    current = ""
    for line in script.strip().splitlines(keepends=True):
        current += line
        if sqlite3.complete_statement(current):
            statements.append(current.strip())
            current = ""
    return statements
