"""An SDK client per event loop: async HTTP clients must not outlive their loop."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")


class LoopBoundClient(Generic[T]):
    """Holds one client, made again when it is asked for from another event loop
    (each ``asyncio.run`` of a sync ``Runner.run`` call starts a new loop)."""

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._client: T | None = None

    def get(self, factory: Callable[[], T]) -> T:
        """The client of the running loop, made with ``factory`` when there is none."""
        loop = asyncio.get_running_loop()
        if self._client is None or self._loop is not loop:
            self._client = factory()
            self._loop = loop
        return self._client

    def take(self) -> T | None:
        """Forgets and returns the client of the running loop (None if none), to close it."""
        client, loop = self._client, self._loop
        self._client = self._loop = None
        try:
            current = asyncio.get_running_loop()
        except RuntimeError:
            current = None
        return client if loop is current else None
