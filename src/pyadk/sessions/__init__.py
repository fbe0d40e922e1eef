"""Sessions: conversations, their state, and the services that store them."""

from pyadk.sessions._sql_service import PagedListSessionsResponse
from pyadk.sessions.base_session_service import (
    BaseSessionService,
    GetSessionConfig,
    ListSessionsResponse,
    SessionNotFoundError,
)
from pyadk.sessions.database_session_service import DatabaseSessionService
from pyadk.sessions.errors import (
    SchemaVersionError,
    SessionBusyError,
    SessionConflictError,
    SessionExistsError,
    StaleSessionError,
)
from pyadk.sessions.in_memory_session_service import InMemorySessionService
from pyadk.sessions.session import Session
from pyadk.sessions.sqlite_session_service import SqliteSessionService
from pyadk.sessions.state import State
from pyadk.sessions.uri import session_service_from_uri

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
