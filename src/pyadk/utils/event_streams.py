"""Running several event streams at once, with consumption back-pressure."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Callable, Sequence
from contextlib import aclosing
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyadk.events.event import Event

_DONE = object()


async def merge_event_streams(
    streams: Sequence[AsyncGenerator[Event, None]],
    *,
    collect_errors: bool = False,
    timeout: float | None = None,
    timeout_error: Callable[[], BaseException] | None = None,
) -> AsyncGenerator[Event, None]:
    """Runs ``streams`` concurrently and yields their events as they come.

    A stream does not advance until its previous event was consumed, so each event is
    handled (e.g. persisted) before its producer goes on. An exception in a stream
    cancels the others and propagates, unless ``collect_errors`` (then that stream just
    ends). After ``timeout`` seconds every stream is cancelled and ``timeout_error()``
    is raised.
    """
    queue: asyncio.Queue[tuple[object, asyncio.Future[None] | None]] = asyncio.Queue()
    loop = asyncio.get_running_loop()

    async def pump(stream: AsyncGenerator[Event, None]) -> None:
        try:
            async with aclosing(stream) as events:
                async for event in events:
                    consumed: asyncio.Future[None] = loop.create_future()
                    queue.put_nowait((event, consumed))
                    await consumed
        except Exception as exc:
            queue.put_nowait((exc, None))
        finally:
            queue.put_nowait((_DONE, None))

    tasks = [asyncio.create_task(pump(stream)) for stream in streams]
    remaining = len(tasks)
    deadline = None if timeout is None else loop.time() + timeout
    try:
        while remaining:
            if deadline is None:
                item, consumed = await queue.get()
            else:
                try:
                    async with asyncio.timeout_at(deadline):
                        item, consumed = await queue.get()
                except TimeoutError:
                    raise (timeout_error() if timeout_error else TimeoutError()) from None
            if item is _DONE:
                remaining -= 1
            elif isinstance(item, Exception):
                if not collect_errors:
                    raise item
            else:
                assert consumed is not None
                yield item  # type: ignore[misc]
                if not consumed.done():
                    consumed.set_result(None)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
