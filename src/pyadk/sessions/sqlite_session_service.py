"""SqliteSessionService: durable sessions in one SQLite file, no extra dependency.

Uses the standard library's ``sqlite3`` in two threads owned by the service (one
writes, one reads), so the event loop never waits on disk. The database runs in WAL
mode: readers in other processes are never blocked, and writers (other processes
included) take turns with ``BEGIN IMMEDIATE``, waiting up to ``busy_timeout`` seconds
for each other.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal, TypeVar
from urllib.parse import unquote, urlsplit

from pyadk.sessions._leases import DEFAULT_LEASE_TTL, release_open_turns
from pyadk.sessions._migrations import migrate
from pyadk.sessions._sql_schema import Dialect, Executor, UniqueViolation
from pyadk.sessions._sql_service import DEFAULT_CACHED_EVENTS, SqlSessionService
from pyadk.sessions._sqlite_wal import enable_wal
from pyadk.sessions._thread_worker import ThreadWorker

T = TypeVar("T")

Synchronous = Literal["OFF", "NORMAL", "FULL", "EXTRA"]

_MIN_SQLITE = (3, 35, 0)  # RETURNING, DROP COLUMN


def sqlite_target(db_path: str | os.PathLike[str]) -> str:
    """What ``sqlite3.connect`` opens for ``db_path``: a filesystem path, ``":memory:"``, a
    ``file:`` URI as given, or the file a SQLAlchemy-style URL names (google-adk accepts
    both). ``sqlite:///relative.db`` is relative to the working directory,
    ``sqlite:////absolute.db`` absolute, ``sqlite://`` or ``sqlite:///:memory:`` a private
    in-memory database; a URL's query (``?mode=ro``) makes a ``file:`` URI."""
    text = os.fspath(db_path)
    scheme, sep, _ = text.partition("://")
    if not sep or scheme.lower() not in ("sqlite", "sqlite+aiosqlite"):
        if text.lower().startswith(("sqlite:", "sqlite+aiosqlite:")):
            raise _invalid_url(text, "")
        return text
    url = urlsplit(text)
    if url.netloc:
        raise _invalid_url(text, "a SQLite URL names no host; ")
    path = unquote(url.path)[1:] or ":memory:"  # sqlite:///x.db -> x.db, //// -> /abs
    return f"file:{path}?{url.query}" if url.query else path


def _invalid_url(text: str, why: str) -> ValueError:
    return ValueError(
        f"Invalid SQLite URI {text!r}: {why}use sqlite:///relative.db, "
        "sqlite:////absolute/path.db or sqlite:///:memory:."
    )


class _SqliteExecutor:
    dialect: Dialect = "sqlite"

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    def execute(self, sql: str, params: Mapping[str, Any] | None = None) -> int:
        try:
            return self._conn.execute(sql, params or {}).rowcount
        except sqlite3.IntegrityError as exc:
            raise UniqueViolation(str(exc)) from exc

    def executemany(self, sql: str, rows: Sequence[Mapping[str, Any]]) -> None:
        try:
            self._conn.executemany(sql, rows)
        except sqlite3.IntegrityError as exc:
            raise UniqueViolation(str(exc)) from exc

    def query(self, sql: str, params: Mapping[str, Any] | None = None) -> list[tuple[Any, ...]]:
        try:
            return self._conn.execute(sql, params or {}).fetchall()
        except sqlite3.IntegrityError as exc:
            raise UniqueViolation(str(exc)) from exc


class SqliteSessionService(SqlSessionService):
    """Sessions in the SQLite database at ``db_path`` (created, and migrated, on first
    use; google-adk's argument name): a path, or a URL such as ``sqlite:///sessions.db``
    (see :func:`sqlite_target`).

    With ``synchronous="NORMAL"`` (the default), every committed event survives a crash
    or ``kill -9`` of the process; ``"FULL"`` also makes it survive a power loss, at the
    cost of one disk flush per commit (several times slower on a real disk). Pass
    ``":memory:"`` for a private in-process database. ``busy_timeout`` is how long a
    write waits for SQLite's lock; ``lease_ttl`` and ``lease_wait`` are the defaults of
    :meth:`turn` (how long a crashed turn keeps its session; how long a turn waits for
    a session another turn holds, 0 refusing it at once with ``SessionBusyError``).
    ``cached_events`` is how many decoded events of recently run sessions the service
    keeps, so that a turn reads only the events it has not seen (0: none).
    """

    def __init__(
        self,
        db_path: str | os.PathLike[str],
        *,
        synchronous: Synchronous = "NORMAL",
        busy_timeout: float = 30.0,
        lease_ttl: float = DEFAULT_LEASE_TTL,
        lease_wait: float = 0.0,
        cached_events: int = DEFAULT_CACHED_EVENTS,
    ) -> None:
        if sqlite3.sqlite_version_info < _MIN_SQLITE:
            raise RuntimeError(
                f"SqliteSessionService needs SQLite >= 3.35 (this Python has "
                f"{sqlite3.sqlite_version})."
            )
        if synchronous not in ("OFF", "NORMAL", "FULL", "EXTRA"):
            raise ValueError(f"Unknown synchronous mode {synchronous!r}.")
        self._set_policies(lease_ttl, lease_wait, cached_events)
        self.path = sqlite_target(db_path)
        self._synchronous = synchronous
        self._busy_timeout = busy_timeout
        self._memory = self.path == ":memory:" or "mode=memory" in self.path
        # One thread and connection for writes, one for reads: a write waiting for
        # another process's lock never holds up this service's reads (WAL).
        self._workers = {role: ThreadWorker(f"pyadk-sqlite-{role}") for role in ("write", "read")}
        self._conns: dict[str, sqlite3.Connection] = {}
        self._ready = False
        self._closed = False

    def __repr__(self) -> str:
        return f"SqliteSessionService({self.path!r})"

    def _connect(self, role: str) -> sqlite3.Connection:
        """The role's connection (called in that role's thread), opened on first use."""
        conn = self._conns.get(role)
        if conn is not None:
            return conn
        if not self._memory and not self.path.startswith("file:"):
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(
            self.path,
            timeout=self._busy_timeout,
            isolation_level=None,  # transactions are explicit
            check_same_thread=False,
            uri=self.path.startswith("file:"),
        )
        try:
            enable_wal(conn, self.path, self._busy_timeout)
            conn.execute(f"PRAGMA synchronous={self._synchronous}")
            if role == "write":
                self._transaction(conn, "BEGIN IMMEDIATE", migrate)
        except BaseException:
            conn.close()
            raise
        self._conns[role] = conn
        return conn

    @staticmethod
    def _transaction(conn: sqlite3.Connection, begin: str, fn: Callable[[Executor], T]) -> T:
        conn.execute(begin)
        try:
            result = fn(_SqliteExecutor(conn))
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
        return result

    async def _run(self, role: str, begin: str, fn: Callable[[Executor], T]) -> T:
        if self._closed:
            raise RuntimeError(f"{self!r} is closed.")
        if not self._ready:  # the writer creates or migrates the schema first
            await self._workers["write"].run(lambda: self._connect("write"))
            self._ready = True
        if self._memory:  # a private in-memory database has one connection
            role = "write"
        return await self._workers[role].run(
            lambda: self._transaction(self._connect(role), begin, fn)
        )

    async def _write(self, fn: Callable[[Executor], T]) -> T:
        return await self._run("write", "BEGIN IMMEDIATE", fn)

    async def _read(self, fn: Callable[[Executor], T]) -> T:
        return await self._run("read", "BEGIN", fn)

    async def close(self) -> None:
        """Closes the database connections; the service cannot be used afterwards."""
        if self._closed:
            return
        await release_open_turns(self)  # turns left open by their callers
        self._closed = True
        for role, worker in self._workers.items():
            conn = self._conns.pop(role, None)
            if conn is not None:
                await worker.run(conn.close)
            worker.stop()
