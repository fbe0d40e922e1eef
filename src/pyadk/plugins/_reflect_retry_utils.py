"""What the reflect-and-retry plugins share: the tracking scope and the failure counter."""

from __future__ import annotations

import asyncio
import enum

REFLECT_AND_RETRY_RESPONSE_TYPE = "ERROR_HANDLED_BY_REFLECT_AND_RETRY_PLUGIN"
"""The ``response_type`` of every answer a reflect-and-retry plugin gives."""

GLOBAL_SCOPE_KEY = "__global_reflect_and_retry_scope__"
"""The scope key of ``TrackingScope.GLOBAL``."""

PerItemFailuresCounter = dict[str, int]
"""Consecutive failures of each tool (or model), by name."""


class TrackingScope(enum.Enum):
    """How long failure counts live: one invocation (a user turn), or the plugin's life."""

    INVOCATION = "invocation"
    GLOBAL = "global"


def resolve_scope_key(scope: TrackingScope, invocation_id: str | None) -> str:
    """The key failures are counted under for ``scope``."""
    if scope is TrackingScope.INVOCATION:
        if not invocation_id:
            raise ValueError("TrackingScope.INVOCATION needs an invocation_id.")
        return invocation_id
    if scope is TrackingScope.GLOBAL:
        return GLOBAL_SCOPE_KEY
    raise ValueError(f"Unknown tracking scope: {scope!r}.")


class ScopedFailureTracker:
    """Consecutive failure counts by scope key and item name.

    Updates hold an asyncio lock: parallel calls on one event loop never lose a count.
    The lock does not guard against threads; use one instance per event loop.
    """

    def __init__(self) -> None:
        self._scoped_failure_counters: dict[str, PerItemFailuresCounter] = {}
        self._lock = asyncio.Lock()

    async def increment(self, scope_key: str, item_name: str) -> int:
        """Counts one more failure of ``item_name``; returns the new count."""
        async with self._lock:
            counter = self._scoped_failure_counters.setdefault(scope_key, {})
            counter[item_name] = count = counter.get(item_name, 0) + 1
            return count

    async def reset(self, scope_key: str, item_name: str) -> None:
        """Forgets ``item_name``'s failures (a success); an empty scope is dropped."""
        async with self._lock:
            counter = self._scoped_failure_counters.get(scope_key)
            if counter is None:
                return
            counter.pop(item_name, None)
            if not counter:
                del self._scoped_failure_counters[scope_key]

    def count(self, scope_key: str, item_name: str) -> int:
        """The current consecutive failures of ``item_name`` in ``scope_key``."""
        return self._scoped_failure_counters.get(scope_key, {}).get(item_name, 0)

    async def forget_scope(self, scope_key: str) -> None:
        """Drops every count of ``scope_key`` (an invocation that ended)."""
        async with self._lock:
            self._scoped_failure_counters.pop(scope_key, None)
