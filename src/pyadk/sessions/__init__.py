"""Sessions: conversations, their state, and the services that store them."""

from pyadk.sessions.base_session_service import (
    BaseSessionService,
    GetSessionConfig,
    ListSessionsResponse,
    SessionNotFoundError,
)
from pyadk.sessions.in_memory_session_service import InMemorySessionService
from pyadk.sessions.session import Session
from pyadk.sessions.state import State

__all__ = [
    "BaseSessionService",
    "GetSessionConfig",
    "InMemorySessionService",
    "ListSessionsResponse",
    "Session",
    "SessionNotFoundError",
    "State",
]
