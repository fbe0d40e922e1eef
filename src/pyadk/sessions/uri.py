"""session_service_from_uri: picks a session service from a configuration string."""

from __future__ import annotations

from pyadk.sessions.base_session_service import BaseSessionService


def session_service_from_uri(uri: str) -> BaseSessionService:
    """The session service that ``uri`` names.

    - ``memory://``: :class:`InMemorySessionService` (lost when the process ends).
    - ``sqlite:///relative/path.db``, ``sqlite:////absolute/path.db`` or
      ``sqlite:///:memory:``: :class:`SqliteSessionService` (standard library only).
    - ``postgresql://user:password@host:5432/db`` (also ``postgres://``,
      ``postgresql+asyncpg://``, ``postgresql+psycopg://``): :class:`DatabaseSessionService`.
    - ``sqlite+aiosqlite:///path.db``: :class:`DatabaseSessionService` over SQLite.
    """
    scheme, sep, _ = uri.strip().partition("://")
    if not sep:
        raise ValueError(
            f"Not a session service URI: {uri!r}. Use memory://, sqlite:///path.db or "
            "postgresql://user@host/db."
        )
    scheme = scheme.lower()
    if scheme == "memory":
        from pyadk.sessions.in_memory_session_service import InMemorySessionService

        return InMemorySessionService()
    if scheme == "sqlite":
        from pyadk.sessions.sqlite_session_service import SqliteSessionService

        return SqliteSessionService(uri.strip())
    if scheme.split("+")[0] in ("postgresql", "postgres") or scheme.startswith("sqlite+"):
        from pyadk.sessions.database_session_service import DatabaseSessionService

        return DatabaseSessionService(uri)
    raise ValueError(
        f"Unknown session service URI scheme {scheme!r} in {uri!r}: use memory://, "
        "sqlite:///path.db or postgresql://user@host/db."
    )
