"""artifact_service_from_uri: picks an artifact service from a configuration string."""

from __future__ import annotations

from pyadk.artifacts.base_artifact_service import BaseArtifactService
from pyadk.sessions.base_session_service import BaseSessionService

_ACCEPTED = (
    "memory://, file:///absolute/dir, file://relative/dir, sqlite:///path.db or "
    "postgresql://user@host/db"
)


def artifact_service_from_uri(
    uri: str, *, session_service: BaseSessionService | None = None
) -> BaseArtifactService:
    """The artifact service that ``uri`` names.

    - ``memory://``: :class:`InMemoryArtifactService` (lost when the process ends).
    - ``file://DIR``: :class:`FileArtifactService` rooted at ``DIR``, which is everything
      after ``file://``, taken as it is (no host part, no percent-decoding):
      ``file:///srv/artifacts`` is the absolute ``/srv/artifacts``, ``file://artifacts``
      the folder ``artifacts`` of the current directory.
    - ``sqlite:///path.db``, ``postgresql://...`` and the other database URIs that
      :func:`~pyadk.sessions.uri.session_service_from_uri` accepts:
      :class:`SqlArtifactService`. When ``session_service`` is a SQL session service
      opened on the same database URI, the artifacts use it (one connection pool, one
      set of threads); otherwise they open the database on their own.

    Anything else (``gs://`` included: Google Cloud Storage is not available) raises
    ValueError.
    """
    text = uri.strip()
    scheme, sep, rest = text.partition("://")
    if not sep:
        raise ValueError(f"Not an artifact service URI: {uri!r}. Use {_ACCEPTED}.")
    scheme = scheme.lower()
    if scheme == "memory":
        from pyadk.artifacts.in_memory_artifact_service import InMemoryArtifactService

        return InMemoryArtifactService()
    if scheme == "file":
        from pyadk.artifacts.file_artifact_service import FileArtifactService

        if not rest:
            raise ValueError(
                f"Artifact URI {uri!r} names no directory: use file:///absolute/dir "
                "or file://relative/dir."
            )
        return FileArtifactService(rest)
    if _is_database(scheme):
        from pyadk.artifacts.sql_artifact_service import SqlArtifactService
        from pyadk.sessions._sql_service import SqlSessionService

        if isinstance(session_service, SqlSessionService) and _opened_on(session_service, text):
            return SqlArtifactService(session_service)
        return SqlArtifactService(text)
    hint = " Google Cloud Storage (gs://) is not available in pyadk." if scheme == "gs" else ""
    raise ValueError(
        f"Unknown artifact service URI scheme {scheme!r} in {uri!r}: use {_ACCEPTED}.{hint}"
    )


def _is_database(scheme: str) -> bool:
    """The schemes that name a SQL session database (see ``sessions/uri.py``)."""
    if scheme == "sqlite" or scheme.startswith("sqlite+"):
        return True
    return scheme.split("+")[0] in ("postgresql", "postgres")


def _opened_on(service: BaseSessionService, uri: str) -> bool:
    """Whether ``service`` is the session service that ``uri`` would open.

    Compares what the service keeps of the URI it was opened with: the SQLite path, or
    the SQLAlchemy URL with its async driver."""
    from pyadk.sessions.database_session_service import DatabaseSessionService, async_url
    from pyadk.sessions.sqlite_session_service import SqliteSessionService

    scheme, _, rest = uri.partition("://")
    if isinstance(service, SqliteSessionService):
        if scheme.lower() != "sqlite" or not rest.startswith("/"):
            return False
        return (rest[1:] or ":memory:") == service.path
    if isinstance(service, DatabaseSessionService):
        return async_url(uri) == service.url
    return False


__all__ = ["artifact_service_from_uri"]
