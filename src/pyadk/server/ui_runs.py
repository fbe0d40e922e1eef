"""Resumable UI runs: a run's UI events are kept so a dropped stream can be resumed.

A UI run executes in a background task, independent of the HTTP connection that
started it. Its events are appended to :attr:`UiRun.events` (``seq`` n is at index
n - 1) and any number of readers follow them from a position, so a client that lost
its connection reconnects with ``Last-Event-ID`` and gets exactly the events after the
last one it saw. Finished runs are kept until ``max_finished`` newer ones exist.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncGenerator, AsyncIterator, Coroutine, Sequence
from contextlib import aclosing
from typing import Any

from pyadk.events.event import Event
from pyadk.server.turn_start import TurnStart
from pyadk.server.ui_convert import UiEventConverter
from pyadk.server.ui_events import ErrorEvent, UiEvent

logger = logging.getLogger(__name__)


class UiRun:
    """The events of one UI run, growing while it runs; readers follow them."""

    def __init__(
        self,
        converter: UiEventConverter,
        *,
        app_name: str,
        user_id: str,
        session_id: str,
    ) -> None:
        self.converter = converter
        self.run_id = converter.run_id
        self.app_name = app_name
        self.user_id = user_id
        self.session_id = session_id
        self.events: list[UiEvent] = []
        self.finished = False
        self.task: asyncio.Task[None] | None = None
        self.turn = TurnStart()
        self._changed = asyncio.Event()

    def publish(self, events: Sequence[UiEvent], *, finished: bool = False) -> None:
        """Appends events and wakes the readers."""
        self.events.extend(events)
        self.finished = self.finished or finished
        changed, self._changed = self._changed, asyncio.Event()
        changed.set()

    async def follow(self, after: int, keepalive: float | None) -> AsyncIterator[UiEvent | None]:
        """The events with ``seq > after``, live until the run ends; ``None`` is yielded
        after ``keepalive`` seconds without events (for an SSE keep-alive comment)."""
        position = max(after, 0)
        while True:
            if position < len(self.events):
                batch = self.events[position:]
                position += len(batch)
                for event in batch:
                    yield event
                continue
            if self.finished:
                return
            try:
                await asyncio.wait_for(self._changed.wait(), keepalive)
            except TimeoutError:
                yield None


async def drive_run(run: UiRun, events: AsyncGenerator[Event, None]) -> None:
    """Feeds an agent run's events through the run's converter into ``run``, always
    ending with ``done``: an exception becomes ``error`` + ``done``, a cancellation
    ``done`` (reason ``cancelled``). Settles ``run.turn`` (see ``turn_start``)."""
    converter = run.converter
    run.turn.bind()
    try:
        async with aclosing(events) as stream:
            async for event in stream:
                run.turn.begin()
                run.publish(converter.convert(event))
        run.turn.end()
        run.publish(converter.finish(), finished=True)
    except asyncio.CancelledError:
        run.turn.end()
        run.publish(converter.cancel(), finished=True)
        raise
    except Exception as exc:
        run.turn.end(exc)
        failed = converter.fail(exc)
        # A refused turn is answered with HTTP 409; a refused input answer is the
        # client's mistake, told in the stream (its error names the request).
        refused = any(isinstance(e, ErrorEvent) and e.request_ids for e in failed)
        if run.turn.refusal is None and not refused:
            logger.exception("UI run %s failed", run.run_id)
        elif refused:
            logger.info("UI run %s: answer refused: %s", run.run_id, exc)
        run.publish(failed, finished=True)


class UiRunRegistry:
    """The UI runs of a server, by id; keeps at most ``max_finished`` finished runs."""

    def __init__(self, *, max_finished: int = 100) -> None:
        self.max_finished = max_finished
        self._runs: dict[str, UiRun] = {}

    def start(self, run: UiRun, work: Coroutine[Any, Any, None]) -> None:
        """Registers ``run`` and starts ``work`` (usually :func:`drive_run`) as a task."""
        self._evict()
        self._runs[run.run_id] = run
        run.task = asyncio.create_task(work, name=f"pyadk-ui-run-{run.run_id}")
        run.task.add_done_callback(lambda _: _ensure_finished(run))

    def get(self, run_id: str) -> UiRun | None:
        return self._runs.get(run_id)

    def discard(self, run_id: str) -> None:
        """Forgets a run (one refused before its turn began: it has nothing to resume)."""
        self._runs.pop(run_id, None)

    def cancel(self, run_id: str) -> bool:
        """Cancels a running run; False if it is unknown or already finished."""
        run = self._runs.get(run_id)
        if run is None or run.finished or run.task is None or run.task.done():
            return False
        run.task.cancel()
        return True

    async def close(self) -> None:
        """Cancels every running run and waits for them."""
        tasks = [r.task for r in self._runs.values() if r.task is not None and not r.task.done()]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    def _evict(self) -> None:
        finished = [run_id for run_id, run in self._runs.items() if run.finished]
        for run_id in finished[: max(0, len(finished) - self.max_finished + 1)]:
            del self._runs[run_id]


def _ensure_finished(run: UiRun) -> None:
    # A task cancelled before it started never ran drive_run: end the run here.
    run.turn.end()
    if not run.finished:
        run.publish(run.converter.cancel(), finished=True)
