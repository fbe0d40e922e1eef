"""SequentialAgent: runs its sub-agents one after another."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from contextlib import aclosing

from pyadk.agents.base_agent import BaseAgent
from pyadk.agents.invocation_context import InvocationContext
from pyadk.events.event import Event


class SequentialAgent(BaseAgent):
    """Runs ``sub_agents`` in order, in the same invocation and branch."""

    async def _run_async_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        for sub_agent in self.sub_agents:
            async with aclosing(sub_agent.run_async(ctx)) as events:
                async for event in events:
                    yield event
