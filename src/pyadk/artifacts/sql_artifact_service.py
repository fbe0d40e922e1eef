"""SqlArtifactService: artifacts in the database of a SQL session service.

One row per version in ``pyadk_artifacts``: the part as JSON, its inline bytes raw in
a blob column. It uses the session service's connections (and its threads, for
SQLite), so sessions and artifacts live in one file or one PostgreSQL database, and
the table comes with the session schema's migrations. Each save is one transaction:
a version appears whole or not at all, and concurrent savers (other processes or
machines included) get distinct versions; a save that loses the next version to
others 100 times in a row gives up with ``ArtifactVersionConflictError``.
"""

from __future__ import annotations

import time
from typing import Any

from pyadk import types
from pyadk.artifacts.base_artifact_service import USER_NAMESPACE_PREFIX, BaseArtifactService
from pyadk.artifacts.in_memory_artifact_service import _as_part, _check_filename
from pyadk.errors import ArtifactVersionConflictError
from pyadk.sessions._sql_schema import Executor
from pyadk.sessions._sql_service import SqlSessionService

_WHERE = "app_name = :a AND user_id = :u AND session_id = :s AND filename = :f"

_SAVE = (
    "INSERT INTO pyadk_artifacts "
    "(app_name, user_id, session_id, filename, version, part, data, create_time) "
    "SELECT :a, :u, :s, :f, COALESCE(MAX(version) + 1, 0), :p, :d, :t "
    f"FROM pyadk_artifacts WHERE {_WHERE} "
    "ON CONFLICT (app_name, user_id, session_id, filename, version) DO NOTHING "
    "RETURNING version"
)
"""Inserts the next version; no row when a concurrent saver took that number first."""

_SAVE_ATTEMPTS = 100
"""Tries of a save at the next version: each lost one is another saver's committed one."""


def _split(part: types.Part) -> tuple[str, bytes | None]:
    """The part as JSON without its inline bytes, and those bytes."""
    data = part.inline_data.data if part.inline_data is not None else None
    if part.inline_data is not None and data is not None:
        blob = part.inline_data.model_copy(update={"data": None})
        part = part.model_copy(update={"inline_data": blob})
    return part.model_dump_json(by_alias=True, exclude_none=True), data


def _join(text: str, data: Any) -> types.Part:
    part = types.Part.model_validate_json(text)
    if data is not None and part.inline_data is not None:
        part.inline_data.data = bytes(data)
    return part


class SqlArtifactService(BaseArtifactService):
    """Stores artifacts in the database of ``sessions``: a
    :class:`~pyadk.sessions.SqliteSessionService` or
    :class:`~pyadk.sessions.DatabaseSessionService`, or the URI of one
    (``sqlite:///app.db``, ``postgresql://...``), opened and closed by this service.
    """

    def __init__(self, sessions: SqlSessionService | str) -> None:
        if isinstance(sessions, str):
            from pyadk.sessions.uri import session_service_from_uri

            opened = session_service_from_uri(sessions)
            if not isinstance(opened, SqlSessionService):
                raise ValueError(
                    f"SqlArtifactService needs a SQLite or PostgreSQL URI, got {sessions!r}."
                )
            self._sessions, self._owns = opened, True
        elif isinstance(sessions, SqlSessionService):
            self._sessions, self._owns = sessions, False
        else:
            raise TypeError(
                "SqlArtifactService needs a SqliteSessionService, a DatabaseSessionService "
                f"or a database URI, got {type(sessions).__name__}."
            )

    def __repr__(self) -> str:
        return f"SqlArtifactService({self._sessions!r})"

    @staticmethod
    def _key(app_name: str, user_id: str, session_id: str, filename: str) -> dict[str, str]:
        """Row key: ``user:`` files belong to no session (session_id '')."""
        scope = "" if filename.startswith(USER_NAMESPACE_PREFIX) else session_id
        return {"a": app_name, "u": user_id, "s": scope, "f": filename}

    async def save_artifact(
        self,
        *,
        app_name: str,
        user_id: str,
        session_id: str,
        filename: str,
        artifact: types.Part,
    ) -> int:
        _check_filename(filename)
        text, data = _split(_as_part(filename, artifact))
        params: dict[str, Any] = {
            **self._key(app_name, user_id, session_id, filename),
            "p": text,
            "d": data,
            "t": time.time(),
        }

        def save(ex: Executor) -> int | None:
            rows = ex.query(_SAVE, params)
            return int(rows[0][0]) if rows else None

        for _ in range(_SAVE_ATTEMPTS):  # (PostgreSQL: a concurrent saver took it first)
            version = await self._sessions._write(save)
            if version is not None:
                return version
        raise ArtifactVersionConflictError(
            f"Could not save artifact {filename!r} (app {app_name!r}, user {user_id!r}, "
            f"session {session_id!r}): concurrent savers took the next version in each of "
            f"{_SAVE_ATTEMPTS} attempts; nothing was saved."
        )

    async def load_artifact(
        self,
        *,
        app_name: str,
        user_id: str,
        session_id: str,
        filename: str,
        version: int | None = None,
    ) -> types.Part | None:
        _check_filename(filename)
        if version is not None and version < 0:
            return None
        params: dict[str, Any] = self._key(app_name, user_id, session_id, filename)
        if version is None:
            sql = f"SELECT part, data FROM pyadk_artifacts WHERE {_WHERE} ORDER BY version DESC"
            sql += " LIMIT 1"
        else:
            sql = f"SELECT part, data FROM pyadk_artifacts WHERE {_WHERE} AND version = :v"
            params["v"] = version
        rows = await self._sessions._read(lambda ex: ex.query(sql, params))
        return _join(rows[0][0], rows[0][1]) if rows else None

    async def list_artifact_keys(
        self, *, app_name: str, user_id: str, session_id: str
    ) -> list[str]:
        params = {"a": app_name, "u": user_id, "s": session_id}
        user_file = f"substr(filename, 1, {len(USER_NAMESPACE_PREFIX)}) = 'user:'"
        sql = (
            "SELECT DISTINCT filename FROM pyadk_artifacts WHERE app_name = :a AND "
            f"user_id = :u AND (session_id = :s OR (session_id = '' AND {user_file}))"
        )
        rows = await self._sessions._read(lambda ex: ex.query(sql, params))
        return sorted(row[0] for row in rows)

    async def delete_artifact(
        self, *, app_name: str, user_id: str, session_id: str, filename: str
    ) -> None:
        _check_filename(filename)
        params = self._key(app_name, user_id, session_id, filename)
        await self._sessions._write(
            lambda ex: ex.execute(f"DELETE FROM pyadk_artifacts WHERE {_WHERE}", params)
        )

    async def list_versions(
        self, *, app_name: str, user_id: str, session_id: str, filename: str
    ) -> list[int]:
        _check_filename(filename)
        params = self._key(app_name, user_id, session_id, filename)
        sql = f"SELECT version FROM pyadk_artifacts WHERE {_WHERE} ORDER BY version"
        rows = await self._sessions._read(lambda ex: ex.query(sql, params))
        return [int(row[0]) for row in rows]

    async def close(self) -> None:
        """Closes the session service, if this service opened it from a URI."""
        if self._owns:
            await self._sessions.close()


__all__ = ["SqlArtifactService"]
