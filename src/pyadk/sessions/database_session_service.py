"""DatabaseSessionService: durable sessions over SQLAlchemy 2 async (PostgreSQL, SQLite).

Needs the ``postgres`` extra (``pip install 'pyadk[postgres]'``: SQLAlchemy and asyncpg).
Every call takes its own pooled connection, so different sessions never wait for each
other; appends to one session are ordered by the optimistic check on its sequence
number, which the database enforces with the session row's lock, and a turn holds the
session's lease (see :meth:`~pyadk.sessions.BaseSessionService.turn`).
"""

from __future__ import annotations

import asyncio
import functools
import sqlite3
import weakref
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar, cast

from pyadk.sessions._leases import DEFAULT_LEASE_TTL, release_open_turns
from pyadk.sessions._migrations import migrate
from pyadk.sessions._sql_schema import Dialect, Executor, UniqueViolation
from pyadk.sessions._sql_service import DEFAULT_CACHED_EVENTS, SqlSessionService
from pyadk.sessions._sqlite_wal import enable_wal

if TYPE_CHECKING:
    from sqlalchemy.engine import Connection
    from sqlalchemy.ext.asyncio import AsyncEngine
    from sqlalchemy.sql.elements import TextClause

T = TypeVar("T")

_DRIVERS = {"postgresql": "postgresql+asyncpg", "postgres": "postgresql+asyncpg"}
_SYNC_SQLITE = {"sqlite", "sqlite+pysqlite"}
_SQLITE_BUSY_TIMEOUT = 30.0
"""Default seconds a SQLite connection waits for another one's lock."""


def async_url(url: str) -> str:
    """``url`` with an async driver: ``postgresql://`` uses asyncpg, ``sqlite://`` aiosqlite."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        raise ValueError(f"Not a database URL: {url!r}.")
    if scheme in _DRIVERS:
        return f"{_DRIVERS[scheme]}://{rest}"
    if scheme in _SYNC_SQLITE:
        return f"sqlite+aiosqlite://{rest}"
    return url


@functools.lru_cache(maxsize=256)
def _statement(sql: str) -> TextClause:
    """The SQLAlchemy statement for ``sql``, made once (the store's SQL is fixed text)."""
    from sqlalchemy import text

    return text(sql)


def _switch_to_wal(args: Sequence[Any], kwargs: dict[str, Any], path: str) -> None:
    """Opens the SQLite database with ``sqlite3.connect(*args, **kwargs)`` (whose
    ``timeout`` is the busy timeout) and switches it to WAL, then closes it."""
    conn = sqlite3.connect(*args, **kwargs)
    try:
        enable_wal(conn, path, float(kwargs["timeout"]))
    finally:
        conn.close()


class _SaExecutor:
    def __init__(self, conn: Connection, dialect: Dialect) -> None:
        self._conn = conn
        self.dialect = dialect

    def _run(self, sql: str, params: Any) -> Any:
        from sqlalchemy import exc

        try:
            return self._conn.execute(_statement(sql), params)
        except exc.IntegrityError as error:
            raise UniqueViolation(str(error.orig)) from error

    def execute(self, sql: str, params: Mapping[str, Any] | None = None) -> int:
        return int(self._run(sql, dict(params or {})).rowcount)

    def executemany(self, sql: str, rows: Sequence[Mapping[str, Any]]) -> None:
        self._run(sql, [dict(row) for row in rows])

    def query(self, sql: str, params: Mapping[str, Any] | None = None) -> list[tuple[Any, ...]]:
        return [tuple(row) for row in self._run(sql, dict(params or {})).fetchall()]


class DatabaseSessionService(SqlSessionService):
    """Sessions in the database at ``db_url`` (tables created and migrated on first use).

    ``postgresql://user:pw@host/db`` uses asyncpg; ``postgresql+psycopg://...`` psycopg 3
    works too. SQLite URLs are accepted (through aiosqlite), but
    :class:`~pyadk.sessions.SqliteSessionService` needs no extra dependency.
    ``lease_ttl`` and ``lease_wait`` are the defaults of :meth:`turn` (how long a
    crashed turn keeps its session; how long a turn waits for a session another turn
    holds). ``cached_events`` is how many decoded events of recently run sessions the
    service keeps, so that a turn reads only the events it has not seen (0: none).
    Extra keyword arguments go to SQLAlchemy's ``create_async_engine``. On SQLite, the
    database is switched to WAL on first use, and a connection waits up to
    ``connect_args={"timeout": seconds}`` (or the URL's ``?timeout=``; default 30) for
    another connection's lock.
    """

    def __init__(
        self,
        db_url: str,
        *,
        lease_ttl: float = DEFAULT_LEASE_TTL,
        lease_wait: float = 0.0,
        cached_events: int = DEFAULT_CACHED_EVENTS,
        **engine_kwargs: Any,
    ) -> None:
        try:
            from sqlalchemy.engine import make_url
        except ImportError as exc:
            raise ImportError(
                "DatabaseSessionService needs SQLAlchemy: pip install 'pyadk[postgres]'."
            ) from exc
        self._set_policies(lease_ttl, lease_wait, cached_events)
        self.url = async_url(db_url)
        backend = make_url(self.url).get_backend_name()
        if backend not in ("postgresql", "sqlite"):
            raise ValueError(
                f"DatabaseSessionService supports PostgreSQL and SQLite, not {backend!r}."
            )
        self.dialect: Dialect = cast(Dialect, backend)
        self._engine_kwargs = engine_kwargs
        # asyncpg connections belong to one event loop: one engine per loop.
        self._engines: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, AsyncEngine] = (
            weakref.WeakKeyDictionary()
        )
        self._migrated = False

    def __repr__(self) -> str:
        from sqlalchemy.engine import make_url

        return f"DatabaseSessionService({make_url(self.url).render_as_string()!r})"

    def _engine(self) -> AsyncEngine:
        loop = asyncio.get_running_loop()
        engine = self._engines.get(loop)
        if engine is None:
            engine = self._create_engine()
            self._engines[loop] = engine
        return engine

    def _create_engine(self) -> AsyncEngine:
        from sqlalchemy import event
        from sqlalchemy.ext.asyncio import create_async_engine

        engine = create_async_engine(self.url, **self._engine_kwargs)
        if self.dialect == "sqlite":

            @event.listens_for(engine.sync_engine, "do_connect")
            def _on_do_connect(_dialect: Any, _record: Any, _args: Any, kwargs: Any) -> None:
                # sqlite3's `timeout` (from connect_args or the URL) is the busy timeout.
                kwargs.setdefault("timeout", _SQLITE_BUSY_TIMEOUT)

            @event.listens_for(engine.sync_engine, "connect")
            def _on_connect(dbapi_connection: Any, _record: Any) -> None:
                dbapi_connection.isolation_level = None  # we send BEGIN ourselves

            @event.listens_for(engine.sync_engine, "begin")
            def _on_begin(conn: Any) -> None:
                conn.exec_driver_sql("BEGIN IMMEDIATE")

        return engine

    async def _prepare_sqlite(self, engine: AsyncEngine) -> None:
        """Switches the SQLite database to WAL before ``engine`` opens it: the mode is kept
        in the file, so every connection opened afterwards uses it. This runs in a plain
        ``sqlite3`` connection in a worker thread, as the engine would open it."""
        if "async_creator" in self._engine_kwargs:
            return  # the caller opens the connections
        args, url_kwargs = engine.dialect.create_connect_args(engine.url)
        kwargs = {**url_kwargs, **(self._engine_kwargs.get("connect_args") or {})}
        for aiosqlite_only in ("iter_chunk_size", "loop"):
            kwargs.pop(aiosqlite_only, None)
        kwargs.setdefault("timeout", _SQLITE_BUSY_TIMEOUT)
        kwargs["isolation_level"] = None
        path = engine.url.database or ":memory:"
        await asyncio.to_thread(_switch_to_wal, args, kwargs, path)

    async def _run(self, fn: Callable[[Executor], T], *, read_only: bool) -> T:
        engine = self._engine()
        if not self._migrated:
            if self.dialect == "sqlite":
                await self._prepare_sqlite(engine)
            async with engine.begin() as conn:
                await conn.run_sync(lambda sync: migrate(_SaExecutor(sync, self.dialect)))
            self._migrated = True
        async with engine.connect() as conn:
            if read_only and self.dialect == "postgresql":
                conn = await conn.execution_options(isolation_level="REPEATABLE READ")
            async with conn.begin():
                return await conn.run_sync(lambda sync: fn(_SaExecutor(sync, self.dialect)))

    async def _write(self, fn: Callable[[Executor], T]) -> T:
        return await self._run(fn, read_only=False)

    async def _read(self, fn: Callable[[Executor], T]) -> T:
        return await self._run(fn, read_only=True)

    async def close(self) -> None:
        """Closes the pooled connections of the current event loop's engine."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        await release_open_turns(self)  # turns left open by their callers
        engine = self._engines.pop(loop, None)
        if engine is not None:
            await engine.dispose()
