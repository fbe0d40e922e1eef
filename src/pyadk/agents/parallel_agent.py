"""ParallelAgent: runs its sub-agents concurrently, each in its own branch."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator
from contextlib import aclosing

from pyadk.agents.base_agent import BaseAgent
from pyadk.agents.invocation_context import InvocationContext
from pyadk.events.event import Event

_DONE = object()


class ParallelAgent(BaseAgent):
    """Runs every sub-agent at the same time.

    Each sub-agent runs in branch ``<branch>.<self>.<sub>`` (``<self>.<sub>`` at the
    root), so it sees the shared history but not its siblings' turns. Events are
    yielded as they come; a branch waits until its previous event was consumed (and
    persisted), so every branch's state changes are applied. An exception in one
    branch cancels the others and propagates.
    """

    async def _run_async_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        if not self.sub_agents:
            return
        queue: asyncio.Queue[tuple[object, asyncio.Event | None]] = asyncio.Queue()

        async def pump(sub_agent: BaseAgent) -> None:
            prefix = f"{ctx.branch}.{self.name}" if ctx.branch else self.name
            sub_ctx = ctx.model_copy(update={"branch": f"{prefix}.{sub_agent.name}"})
            try:
                async with aclosing(sub_agent.run_async(sub_ctx)) as events:
                    async for event in events:
                        consumed = asyncio.Event()
                        await queue.put((event, consumed))
                        await consumed.wait()
            except BaseException as exc:
                await queue.put((exc, None))
                raise
            finally:
                await queue.put((_DONE, None))

        tasks = [asyncio.create_task(pump(sub)) for sub in self.sub_agents]
        remaining = len(tasks)
        try:
            while remaining:
                item, consumed = await queue.get()
                if item is _DONE:
                    remaining -= 1
                elif isinstance(item, BaseException):
                    raise item
                else:
                    assert isinstance(item, Event) and consumed is not None
                    yield item
                    consumed.set()
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
