"""LoopAgent: runs its sub-agents in a loop until escalation or max_iterations."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from contextlib import aclosing

from pyadk.agents.base_agent import BaseAgent
from pyadk.agents.invocation_context import InvocationContext
from pyadk.events.event import Event


class LoopAgent(BaseAgent):
    """Repeats ``sub_agents`` in order.

    Stops after ``max_iterations`` rounds (None: no limit) or when an event escalates
    (``exit_loop``, or ``actions.escalate``). An escalation ends only the nearest
    enclosing loop: an outer loop goes on.
    """

    max_iterations: int | None = None

    async def _run_async_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        iteration = 0
        while self.max_iterations is None or iteration < self.max_iterations:
            iteration += 1
            for sub_agent in self.sub_agents:
                async with aclosing(sub_agent.run_async(ctx)) as events:
                    async for event in events:
                        escalated = event.actions.escalate and not ctx.is_escalation_handled(event)
                        if escalated:
                            ctx.mark_escalation_handled(event)
                        yield event
                        if escalated:
                            return
