"""BaseMemoryService: the contract of every long-term memory store."""

import abc
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from pydantic import Field

from pyadk import types
from pyadk.sessions.session import Session
from pyadk.types import _Base

if TYPE_CHECKING:
    from pyadk.events.event import Event


class MemoryEntry(_Base):
    """One remembered message: its content, who wrote it and when (ISO-8601); ``id`` and
    ``custom_metadata`` are set by the services that have them."""

    content: types.Content
    custom_metadata: dict[str, Any] = Field(default_factory=dict)
    id: str | None = None
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

    async def add_events_to_memory(
        self,
        *,
        app_name: str,
        user_id: str,
        events: "Sequence[Event]",
        session_id: str | None = None,
        custom_metadata: Mapping[str, object] | None = None,
    ) -> None:
        """Adds some events (a delta, such as the latest turn) to the user's memory."""
        raise NotImplementedError(
            f"{type(self).__name__} does not support adding events; call "
            "add_session_to_memory(session) instead."
        )

    async def add_memory(
        self,
        *,
        app_name: str,
        user_id: str,
        memories: Sequence[MemoryEntry],
        custom_metadata: Mapping[str, object] | None = None,
    ) -> None:
        """Writes memory entries directly into the user's memory."""
        raise NotImplementedError(
            f"{type(self).__name__} does not support direct memory writes; call "
            "add_events_to_memory(...) or add_session_to_memory(session) instead."
        )

    async def delete_memory(
        self, *, app_name: str, user_id: str, memory_id: str | None = None
    ) -> None:
        """Forgets the memory whose ``MemoryEntry.id`` is ``memory_id``."""
        raise NotImplementedError(
            f"{type(self).__name__} does not support deleting individual memories."
        )

    async def close(self) -> None:
        """Releases the service's resources (connections, threads); nothing by default."""
        return None
