"""Running several event streams at once, with consumption back-pressure."""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import AsyncGenerator, Callable, Sequence
from typing import TYPE_CHECKING

from pyadk.errors import InvocationStop

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
    loop = asyncio.get_running_loop()
    # What the streams hand over, in order: (event, consumed), (exception, None) or
    # (_DONE, None). The consumer sleeps on ``waiter`` while nothing is ready.
    ready: deque[tuple[object, asyncio.Future[None] | None]] = deque()
    waiter: asyncio.Future[None] | None = None

    def hand_over(item: object, consumed: asyncio.Future[None] | None) -> None:
        ready.append((item, consumed))
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def pump(stream: AsyncGenerator[Event, None]) -> None:
        try:
            try:
                async for event in stream:
                    consumed: asyncio.Future[None] = loop.create_future()
                    hand_over(event, consumed)
                    await consumed
            finally:
                await stream.aclose()
        except Exception as exc:
            hand_over(exc, None)
        finally:
            hand_over(_DONE, None)

    tasks = [asyncio.create_task(pump(stream)) for stream in streams]
    remaining = len(tasks)
    deadline = None if timeout is None else loop.time() + timeout
    try:
        while remaining:
            if not ready:
                waiter = loop.create_future()
                if deadline is None:
                    await waiter
                else:
                    try:
                        async with asyncio.timeout_at(deadline):
                            await waiter
                    except TimeoutError:
                        raise (timeout_error() if timeout_error else TimeoutError()) from None
                waiter = None
                continue
            item, consumed = ready.popleft()
            if item is _DONE:
                remaining -= 1
            elif isinstance(item, Exception):
                if not collect_errors or isinstance(item, InvocationStop):
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
