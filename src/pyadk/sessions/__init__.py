"""Sessions: conversations, their state, and the services that store them."""

from typing import TYPE_CHECKING

from pyadk.sessions.base_session_service import (
    BaseSessionService,
    GetSessionConfig,
    ListSessionsResponse,
    SessionNotFoundError,
)
from pyadk.sessions.errors import (
    SchemaVersionError,
    SessionBusyError,
    SessionConflictError,
    SessionExistsError,
    StaleSessionError,
)
from pyadk.sessions.in_memory_session_service import InMemorySessionService
from pyadk.sessions.session import Session
from pyadk.sessions.state import State
from pyadk.utils.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from pyadk.sessions._sql_service import PagedListSessionsResponse
    from pyadk.sessions.database_session_service import DatabaseSessionService
    from pyadk.sessions.sqlite_session_service import SqliteSessionService
    from pyadk.sessions.uri import session_service_from_uri

# The persistent services load on first use: most programs only need the in-memory one.
__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "PagedListSessionsResponse": "._sql_service",
        "DatabaseSessionService": ".database_session_service",
        "SqliteSessionService": ".sqlite_session_service",
        "session_service_from_uri": ".uri",
    },
    globals(),
)

__all__ = [
    "BaseSessionService",
    "DatabaseSessionService",
    "GetSessionConfig",
    "InMemorySessionService",
    "ListSessionsResponse",
    "PagedListSessionsResponse",
    "SchemaVersionError",
    "Session",
    "SessionBusyError",
    "SessionConflictError",
    "SessionExistsError",
    "SessionNotFoundError",
    "SqliteSessionService",
    "StaleSessionError",
    "State",
    "session_service_from_uri",
]
