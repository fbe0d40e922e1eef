"""BackgroundRun: an agent run iterated by its own task, read through a queue.

``POST /run_sse`` starts the run this way so it can answer 409 when the session is
busy (:meth:`BackgroundRun.started`) before it commits to a 200 stream, then
stream the events as they come.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator
from contextlib import aclosing
from dataclasses import dataclass

from pyadk.events.event import Event
from pyadk.server.turn_start import TurnStart

_RUNNING: set[asyncio.Task[None]] = set()
"""Strong references: a task whose reader went away must still finish its cleanup."""


@dataclass(frozen=True)
class _End:
    error: Exception | None


class BackgroundRun:
    """Iterates ``events`` (a ``Runner.run_async`` generator) in a task."""

    def __init__(self, events: AsyncGenerator[Event, None]) -> None:
        self.turn = TurnStart()
        self._queue: asyncio.Queue[Event | _End] = asyncio.Queue()
        self._task = asyncio.create_task(self._drive(events), name="pyadk-sse-run")
        _RUNNING.add(self._task)
        self._task.add_done_callback(_RUNNING.discard)

    async def _drive(self, events: AsyncGenerator[Event, None]) -> None:
        self.turn.bind()
        error: Exception | None = None
        try:
            async with aclosing(events) as stream:
                async for event in stream:
                    self.turn.begin()
                    self._queue.put_nowait(event)
        except Exception as exc:
            error = exc
        finally:
            self.turn.end(error)
            self._queue.put_nowait(_End(error))

    async def started(self) -> None:
        """Waits until the turn began or the run ended; HTTP 409 (and the run is
        over) when the session was busy or changed before the turn began."""
        try:
            await self.turn.wait()
        except BaseException:
            self.cancel()
            raise

    async def events(self) -> AsyncIterator[Event]:
        """The run's events as they come; re-raises the exception that ended the run."""
        while True:
            item = await self._queue.get()
            if isinstance(item, _End):
                if item.error is not None:
                    raise item.error
                return
            yield item

    def cancel(self) -> None:
        """Stops the run (when its reader is gone); its turn ends, releasing the session."""
        self._task.cancel()
