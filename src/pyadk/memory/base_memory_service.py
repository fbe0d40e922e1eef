"""BaseMemoryService: the contract of every long-term memory store."""

from __future__ import annotations

import abc

from pydantic import Field

from pyadk import types
from pyadk.sessions.session import Session
from pyadk.types import _Base


class MemoryEntry(_Base):
    """One remembered message: its content, who wrote it and when (ISO-8601)."""

    content: types.Content
    author: str | None = None
    timestamp: str | None = None


class SearchMemoryResponse(_Base):
    """The memories matching a search, best first."""

    memories: list[MemoryEntry] = Field(default_factory=list)


class BaseMemoryService(abc.ABC):
    """Keeps what was said in past sessions so agents can recall it later."""

    @abc.abstractmethod
    async def add_session_to_memory(self, session: Session) -> None:
        """Adds (or refreshes) the session's events in the memory of its app and user."""

    @abc.abstractmethod
    async def search_memory(
        self, *, app_name: str, user_id: str, query: str
    ) -> SearchMemoryResponse:
        """The memories of the app's user that match ``query``."""
