"""SqliteMemoryService: long-term memory in one SQLite file, no extra dependency.

The standard library's ``sqlite3`` runs in two threads owned by the service (one writes,
one reads), as in :class:`~pyadk.sessions.SqliteSessionService`, so the event loop never
waits on disk. The file is in WAL mode; writers (other processes included) take turns
with ``BEGIN IMMEDIATE``, waiting up to ``busy_timeout`` seconds for each other.
"""

from __future__ import annotations

import functools
import hashlib
import os
import sqlite3
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

from pyadk import types
from pyadk.events.event import Event
from pyadk.memory._memory_text import event_search_text, fts_match, like_pattern, query_tokens
from pyadk.memory._sqlite_memory_schema import FtsMode, prepare_schema
from pyadk.memory.base_memory_service import BaseMemoryService, MemoryEntry, SearchMemoryResponse
from pyadk.sessions._sqlite_wal import enable_wal
from pyadk.sessions._thread_worker import ThreadWorker
from pyadk.sessions.session import Session
from pyadk.sessions.sqlite_session_service import sqlite_target

T = TypeVar("T")

UNKNOWN_SESSION_ID = "__unknown_session_id__"
"""The ``session_id`` of events added by ``add_events_to_memory`` without one."""

_Row = tuple[str, str, str, str, str, float, str, str]

_UPSERT = """
INSERT INTO memory_events (
  app_name, user_id, session_id, event_id, author, timestamp, content_json, search_text
) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (app_name, user_id, session_id, event_id) DO UPDATE SET
  author = excluded.author, timestamp = excluded.timestamp,
  content_json = excluded.content_json, search_text = excluded.search_text
"""

_SEARCH_FTS = """
SELECT e.id, e.session_id, e.event_id, e.author, e.timestamp, e.content_json
FROM memory_events_fts JOIN memory_events AS e ON e.id = memory_events_fts.rowid
WHERE e.app_name = ? AND e.user_id = ? AND memory_events_fts.search_text MATCH ?
ORDER BY bm25(memory_events_fts), e.timestamp DESC
LIMIT ?
"""


class SqliteMemoryService(BaseMemoryService):
    """Memories of the text events of sessions, in the SQLite database at ``db_path`` (a
    path, or a URL such as ``sqlite:///memory.db``; see
    :func:`~pyadk.sessions.sqlite_session_service.sqlite_target`), created on first use.

    A search finds the memories of the same app and user that share at least one word
    with the query (case-insensitive, any script), best matches first (FTS5's bm25
    ranking, or the number of query words found when searching with ``LIKE``), then the
    most recent, at most ``max_results``. ``fts="auto"`` uses SQLite's FTS5 index when
    the build has it, ``"on"`` requires it, ``"off"`` matches words as substrings with
    ``LIKE``. Only the first ``max_event_bytes`` of an event's text are searchable (its
    whole content is stored and returned). Adding an event again (same session and event
    id) updates its memory; memories are never dropped unless :meth:`delete_memory` is
    called. ``":memory:"`` is a private in-process database, emptied by :meth:`close`.
    """

    def __init__(
        self,
        db_path: str | os.PathLike[str],
        *,
        fts: FtsMode = "auto",
        max_event_bytes: int = 262_144,
        max_results: int = 50,
        busy_timeout: float = 30.0,
    ) -> None:
        if not os.fspath(db_path).strip():
            raise ValueError("SqliteMemoryService: db_path must be set.")
        if fts not in ("auto", "on", "off"):
            raise ValueError(
                f"SqliteMemoryService: fts must be 'auto', 'on' or 'off', not {fts!r}."
            )
        for name, value in (("max_event_bytes", max_event_bytes), ("max_results", max_results)):
            if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
                raise ValueError(
                    f"SqliteMemoryService: {name} must be a positive int, not {value!r}."
                )
        if busy_timeout < 0:
            raise ValueError(
                f"SqliteMemoryService: busy_timeout must be >= 0, not {busy_timeout!r}."
            )
        self.path = sqlite_target(db_path)
        self._memory = self.path == ":memory:" or "mode=memory" in self.path
        self._plain_file = not self._memory and not self.path.startswith("file:")
        if self._plain_file and Path(self.path).is_dir():
            raise ValueError(f"SqliteMemoryService: db_path {self.path!r} is a directory.")
        self._fts_mode: FtsMode = fts
        self._max_event_bytes = max_event_bytes
        self._max_results = max_results
        self._busy_timeout = busy_timeout
        self._workers: dict[str, ThreadWorker] = {}
        self._conns: dict[str, sqlite3.Connection] = {}
        self._use_fts: bool | None = None  # known once the writer has opened the file
        self._fts_ready = False  # set by the writer's thread

    def __repr__(self) -> str:
        return f"SqliteMemoryService({self.path!r})"

    async def add_session_to_memory(self, session: Session) -> None:
        """Adds the session's text events (again: updates them) to its user's memory."""
        await self.add_events_to_memory(
            app_name=session.app_name,
            user_id=session.user_id,
            events=session.events,
            session_id=session.id,
        )

    async def add_events_to_memory(
        self,
        *,
        app_name: str,
        user_id: str,
        events: Sequence[Event],
        session_id: str | None = None,
        custom_metadata: Mapping[str, object] | None = None,
    ) -> None:
        """Adds the text events among ``events`` to the user's memory (``custom_metadata``
        is ignored). Events without text, and partial (streamed) chunks, are skipped."""
        del custom_metadata  # no option uses it
        rows = [
            row
            for event in events
            if (row := self._row(app_name, user_id, session_id or UNKNOWN_SESSION_ID, event))
        ]
        if rows:
            await self._run("write", lambda conn, _: _write(conn, _UPSERT, rows))

    async def search_memory(
        self, *, app_name: str, user_id: str, query: str
    ) -> SearchMemoryResponse:
        """The user's memories sharing a word with ``query``, best first."""
        tokens = query_tokens(query or "")
        if not tokens:
            return SearchMemoryResponse()
        limit = self._max_results
        rows = await self._run(
            "read", lambda conn, use_fts: _search(conn, use_fts, app_name, user_id, tokens, limit)
        )
        return SearchMemoryResponse(memories=[_entry(row) for row in rows])

    async def delete_memory(
        self, *, app_name: str, user_id: str, memory_id: str | None = None
    ) -> None:
        """Forgets the user's memory whose ``MemoryEntry.id`` is ``memory_id`` (nothing
        happens if there is none)."""
        if not memory_id or not memory_id.isdecimal():
            return
        sql = "DELETE FROM memory_events WHERE id = ? AND app_name = ? AND user_id = ?"
        params = [(int(memory_id), app_name, user_id)]
        await self._run("write", lambda conn, _: _write(conn, sql, params))

    async def close(self) -> None:
        """Closes the database connections and threads. The service reopens the file if
        used again (a ``":memory:"`` database starts empty)."""
        workers, conns = self._workers, self._conns
        self._workers, self._conns, self._use_fts = {}, {}, None
        for role, worker in workers.items():
            # After the calls queued before: they may still open the role's connection.
            await worker.run(functools.partial(_close, conns, role))
            worker.stop()

    # -- internals ------------------------------------------------------------------------

    def _row(self, app_name: str, user_id: str, session_id: str, event: Event) -> _Row | None:
        if event.partial or event.content is None:
            return None
        search_text = event_search_text(event, self._max_event_bytes)
        if not search_text:
            return None
        content_json = event.content.model_dump_json(exclude_none=True)
        author = event.author or ""
        event_id = event.id
        if not event_id:  # a stable id: adding the same event again updates it
            key = f"{author}:{event.timestamp}:{content_json}".encode()
            event_id = hashlib.sha256(key).hexdigest()[:32]
        return (
            app_name,
            user_id,
            session_id,
            event_id,
            author,
            float(event.timestamp),
            content_json,
            search_text,
        )

    def _worker(self, role: str) -> ThreadWorker:
        worker = self._workers.get(role)
        if worker is None:
            worker = self._workers[role] = ThreadWorker(f"pyadk-sqlite-memory-{role}")
        return worker

    async def _run(self, role: str, fn: Callable[[sqlite3.Connection, bool], T]) -> T:
        """``fn(connection, use_fts)`` in the role's thread. Calls already queued when
        :meth:`close` runs finish on the connections they were queued for."""
        conns = self._conns
        use_fts = self._use_fts
        if use_fts is None:  # the writer creates or checks the schema first
            use_fts = await self._worker("write").run(lambda: self._open_writer(conns))
            if self._conns is not conns:  # closed meanwhile: start again
                return await self._run(role, fn)
            self._use_fts = use_fts
        if self._memory:  # a private in-memory database has one connection
            role = "write"
        return await self._worker(role).run(lambda: fn(self._connect(role, conns), use_fts))

    def _open_writer(self, conns: dict[str, sqlite3.Connection]) -> bool:
        self._connect("write", conns)
        return self._fts_ready

    def _connect(self, role: str, conns: dict[str, sqlite3.Connection]) -> sqlite3.Connection:
        """The role's connection (called in that role's thread), opened on first use."""
        conn = conns.get(role)
        if conn is not None:
            return conn
        if self._plain_file:
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        try:
            conn = sqlite3.connect(
                self.path,
                timeout=self._busy_timeout,
                isolation_level=None,  # transactions are explicit
                check_same_thread=False,
                uri=self.path.startswith("file:"),
            )
        except sqlite3.Error as exc:
            exc.add_note(f"while opening the memory database {self.path!r}")
            raise
        try:
            if not self._memory:
                _enable_wal(conn, self.path, self._busy_timeout)
            conn.execute("PRAGMA synchronous=NORMAL")
            if role == "write":
                self._fts_ready = prepare_schema(conn, self._fts_mode, self.path)
        except sqlite3.Error as exc:
            conn.close()
            exc.add_note(f"while opening the memory database {self.path!r}")
            raise
        except BaseException:
            conn.close()
            raise
        conns[role] = conn
        return conn


def _enable_wal(conn: sqlite3.Connection, path: str, timeout: float) -> None:
    try:
        enable_wal(conn, path, timeout)
    except sqlite3.OperationalError as exc:  # a read-only file keeps its journal mode
        if exc.sqlite_errorcode & 0xFF != sqlite3.SQLITE_READONLY:
            raise


def _close(conns: dict[str, sqlite3.Connection], role: str) -> None:
    conn = conns.pop(role, None)
    if conn is not None:
        conn.close()


def _write(conn: sqlite3.Connection, sql: str, rows: Sequence[tuple[Any, ...]]) -> None:
    conn.execute("BEGIN IMMEDIATE")
    try:
        conn.executemany(sql, rows)
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def _search(
    conn: sqlite3.Connection,
    use_fts: bool,
    app_name: str,
    user_id: str,
    tokens: list[str],
    limit: int,
) -> list[tuple[Any, ...]]:
    if use_fts:
        return conn.execute(_SEARCH_FTS, (app_name, user_id, fts_match(tokens), limit)).fetchall()
    found = " OR ".join(["search_text LIKE ? ESCAPE '\\'"] * len(tokens))
    score = " + ".join(["(search_text LIKE ? ESCAPE '\\')"] * len(tokens))
    patterns = [like_pattern(token) for token in tokens]
    sql = (
        "SELECT id, session_id, event_id, author, timestamp, content_json "
        f"FROM memory_events WHERE app_name = ? AND user_id = ? AND ({found}) "
        f"ORDER BY ({score}) DESC, timestamp DESC LIMIT ?"
    )
    return conn.execute(sql, (app_name, user_id, *patterns, *patterns, limit)).fetchall()


def _entry(row: tuple[Any, ...]) -> MemoryEntry:
    rowid, session_id, event_id, author, timestamp, content_json = row
    return MemoryEntry(
        id=str(rowid),
        content=types.Content.model_validate_json(content_json),
        author=author or None,
        timestamp=datetime.fromtimestamp(timestamp, tz=UTC).isoformat(),
        custom_metadata={"session_id": session_id, "event_id": event_id},
    )
