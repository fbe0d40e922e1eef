"""Memory: long-term recall of past sessions, and the services that store it."""

from typing import TYPE_CHECKING

from pyadk.memory.base_memory_service import (
    BaseMemoryService,
    MemoryEntry,
    SearchMemoryResponse,
)
from pyadk.memory.in_memory_memory_service import InMemoryMemoryService
from pyadk.utils.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from pyadk.memory.sqlite_memory_service import SqliteMemoryService

# The SQLite service loads on first use, as in google-adk.
__getattr__, __dir__ = lazy_exports(
    __name__, {"SqliteMemoryService": ".sqlite_memory_service"}, globals()
)

__all__ = [
    "BaseMemoryService",
    "InMemoryMemoryService",
    "MemoryEntry",
    "SearchMemoryResponse",
    "SqliteMemoryService",
]
