"""LoopAgent: runs its sub-agents in a loop until escalation or max_iterations."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from contextlib import aclosing

from pyadk.agents.base_agent import BaseAgent
from pyadk.agents.conditions import Condition
from pyadk.agents.failure_policy import FailurePolicy, RunState, run_in_order
from pyadk.agents.invocation_context import InvocationContext
from pyadk.events.event import Event


class LoopAgent(BaseAgent):
    """Repeats ``sub_agents`` in order.

    Stops after ``max_iterations`` rounds (None: no limit), when an event escalates
    (``exit_loop``, or ``actions.escalate``) or when ``until`` (a condition on a
    read-only view of the invocation, e.g. ``lambda ctx: ctx.state.get("approved")``)
    holds after a sub-agent: no model has to call a tool to end the loop. An
    escalation ends only the nearest enclosing loop: an outer loop goes on.
    ``on_failure`` works as in SequentialAgent: ``stop`` and ``skip_rest`` end the
    loop at a failed step, ``continue`` goes on.
    """

    max_iterations: int | None = None
    on_failure: FailurePolicy | None = None
    until: Condition | None = None

    async def _run_async_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        iteration = 0
        while self.max_iterations is None or iteration < self.max_iterations:
            iteration += 1
            state = RunState()
            async with aclosing(
                run_in_order(
                    ctx,
                    self.sub_agents,
                    self.on_failure,
                    state,
                    stop_on_escalation=True,
                    until=self.until,
                )
            ) as events:
                async for event in events:
                    yield event
            if state.escalated or state.paused or state.until_met or state.stopped_by is not None:
                return
