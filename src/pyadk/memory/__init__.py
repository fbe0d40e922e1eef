"""Memory: long-term recall of past sessions, and the services that store it."""

from pyadk.memory.base_memory_service import (
    BaseMemoryService,
    MemoryEntry,
    SearchMemoryResponse,
)
from pyadk.memory.in_memory_memory_service import InMemoryMemoryService

__all__ = [
    "BaseMemoryService",
    "InMemoryMemoryService",
    "MemoryEntry",
    "SearchMemoryResponse",
]
