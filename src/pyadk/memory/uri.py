"""memory_service_from_uri: picks a memory service from a configuration string."""

from __future__ import annotations

from pyadk.memory.base_memory_service import BaseMemoryService

_FORMS = "memory:// or sqlite:///path.db"


def memory_service_from_uri(uri: str) -> BaseMemoryService:
    """The memory service that ``uri`` names.

    - ``memory://``: :class:`InMemoryMemoryService` (lost when the process ends).
    - ``sqlite:///relative/path.db``, ``sqlite:////absolute/path.db``:
      :class:`SqliteMemoryService` (standard library only).

    google-adk's cloud memory services (``rag://``, ``agentengine://``) are not
    available: a ValueError says so.
    """
    scheme, sep, _ = uri.strip().partition("://")
    if not sep:
        raise ValueError(f"Not a memory service URI: {uri!r}. Use {_FORMS}.")
    scheme = scheme.lower()
    if scheme == "memory":
        from pyadk.memory.in_memory_memory_service import InMemoryMemoryService

        return InMemoryMemoryService()
    if scheme == "sqlite":
        from pyadk.memory.sqlite_memory_service import SqliteMemoryService

        return SqliteMemoryService(uri.strip())
    if scheme in ("rag", "agentengine"):
        raise ValueError(
            f"The {scheme}:// memory service (a Google Cloud service) is not available "
            f"in pyadk: use {_FORMS}."
        )
    raise ValueError(f"Unknown memory service URI scheme {scheme!r} in {uri!r}: use {_FORMS}.")
