"""Schema versions of the SQL session stores and the in-place migrations between them.

A new database runs every step from version 0, so the upgrade path is exercised on
every fresh install. Steps run in one transaction holding the schema lock: two
processes opening the same database at once migrate it exactly once, and a failed step
leaves the previous version intact. Event bodies are JSON documents, so a new optional
``Event`` field never needs a migration.

History:

1. Sessions with their own state as one JSON document on the session row; events
   (``session_pk``, ``seq``, timestamp, JSON body); app and user state as key rows.
2. Session state as key rows too (an append writes only the keys it changes, whatever
   the size of the state); ``create_time``; an index for paging a user's sessions.
3. The turn lease on the session row: ``lease_owner`` (``invocation_id/token`` of the
   turn holding the session, or NULL) and ``lease_expires`` (Unix time, by the
   database's clock).
4. Artifacts (``SqlArtifactService``): one row per version, the part as JSON and its
   inline bytes raw.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from pyadk.sessions._sql_schema import (
    SCHEMA_TABLE,
    Executor,
    lock_schema,
    run_ddl,
    table_exists,
)
from pyadk.sessions.errors import SchemaVersionError


def _to_v1(ex: Executor) -> None:
    run_ddl(
        ex,
        [
            f"CREATE TABLE {SCHEMA_TABLE} (version INTEGER NOT NULL)",
            "CREATE TABLE pyadk_sessions ("
            " pk {pk}, app_name TEXT NOT NULL, user_id TEXT NOT NULL, id TEXT NOT NULL,"
            " seq {bigint} NOT NULL DEFAULT 0, state TEXT NOT NULL DEFAULT '{{}}',"
            " update_time {float} NOT NULL, UNIQUE (app_name, user_id, id))",
            "CREATE TABLE pyadk_events ("
            " session_pk {bigint} NOT NULL, seq {bigint} NOT NULL, ts {float} NOT NULL,"
            " body TEXT NOT NULL, PRIMARY KEY (session_pk, seq))",
            "CREATE TABLE pyadk_app_state ("
            " app_name TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL,"
            " PRIMARY KEY (app_name, key))",
            "CREATE TABLE pyadk_user_state ("
            " app_name TEXT NOT NULL, user_id TEXT NOT NULL, key TEXT NOT NULL,"
            " value TEXT NOT NULL, PRIMARY KEY (app_name, user_id, key))",
        ],
    )
    ex.execute(f"INSERT INTO {SCHEMA_TABLE} (version) VALUES (0)")


def _to_v2(ex: Executor) -> None:
    run_ddl(
        ex,
        [
            "CREATE TABLE pyadk_session_state ("
            " session_pk {bigint} NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL,"
            " PRIMARY KEY (session_pk, key))",
            "ALTER TABLE pyadk_sessions ADD COLUMN create_time {float}",
            "CREATE INDEX pyadk_sessions_by_user ON pyadk_sessions (app_name, user_id, pk)",
        ],
    )
    rows = ex.query("SELECT pk, state FROM pyadk_sessions WHERE state <> '{}'")
    entries = [
        {"pk": pk, "key": key, "value": json.dumps(value, ensure_ascii=False)}
        for pk, state in rows
        for key, value in json.loads(state).items()
    ]
    if entries:
        ex.executemany(
            "INSERT INTO pyadk_session_state (session_pk, key, value) VALUES (:pk, :key, :value)",
            entries,
        )
    ex.execute("UPDATE pyadk_sessions SET create_time = update_time")
    ex.execute("ALTER TABLE pyadk_sessions DROP COLUMN state")


def _to_v3(ex: Executor) -> None:
    run_ddl(
        ex,
        [
            "ALTER TABLE pyadk_sessions ADD COLUMN lease_owner TEXT",
            "ALTER TABLE pyadk_sessions ADD COLUMN lease_expires {float}",
        ],
    )


def _to_v4(ex: Executor) -> None:
    run_ddl(
        ex,
        [
            "CREATE TABLE pyadk_artifacts ("
            " app_name TEXT NOT NULL, user_id TEXT NOT NULL, session_id TEXT NOT NULL,"
            " filename TEXT NOT NULL, version {bigint} NOT NULL, part TEXT NOT NULL,"
            " data {blob}, create_time {float} NOT NULL,"
            " PRIMARY KEY (app_name, user_id, session_id, filename, version))",
        ],
    )


STEPS: list[Callable[[Executor], None]] = [_to_v1, _to_v2, _to_v3, _to_v4]
"""``STEPS[n]`` upgrades a database from version ``n`` to ``n + 1``."""

LATEST_VERSION = len(STEPS)


def schema_version(ex: Executor) -> int:
    """The database's schema version; 0 when it has no pyadk tables."""
    if not table_exists(ex, SCHEMA_TABLE):
        return 0
    rows = ex.query(f"SELECT version FROM {SCHEMA_TABLE}")
    return int(rows[0][0]) if rows else 0


def migrate(ex: Executor) -> int:
    """Upgrades the database in place to :data:`LATEST_VERSION`; returns the old version.

    Must run inside a write transaction. Idempotent: a current database is left as is.
    """
    lock_schema(ex)
    found = schema_version(ex)
    if found > LATEST_VERSION:
        raise SchemaVersionError(
            f"The session database has schema version {found}, but this pyadk supports "
            f"up to version {LATEST_VERSION}. Upgrade pyadk to open it."
        )
    for version in range(found, LATEST_VERSION):
        STEPS[version](ex)
        ex.execute(f"UPDATE {SCHEMA_TABLE} SET version = :v", {"v": version + 1})
    return found
