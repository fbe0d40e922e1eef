"""The session service named by ``--session-uri`` (in memory when none is given)."""

from __future__ import annotations

from pyadk.cli.errors import CliError
from pyadk.sessions.base_session_service import BaseSessionService
from pyadk.sessions.in_memory_session_service import InMemorySessionService


def session_service_for(uri: str | None) -> BaseSessionService:
    """``memory://``, ``sqlite:///path.db``, ``postgresql://...`` or None (in memory)."""
    if not uri:
        return InMemorySessionService()
    from pyadk.sessions.uri import session_service_from_uri

    try:
        return session_service_from_uri(uri)
    except (ValueError, ImportError) as error:
        raise CliError(f"--session-uri: {error}") from error
