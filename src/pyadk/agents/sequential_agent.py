"""SequentialAgent: runs its sub-agents one after another."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator
from contextlib import aclosing

from pydantic import Field

from pyadk.agents.base_agent import BaseAgent
from pyadk.agents.conditions import Condition
from pyadk.agents.failure_policy import FailurePolicy, RunState, run_detached, run_in_order
from pyadk.agents.invocation_context import InvocationContext
from pyadk.events.event import Event


class SequentialAgent(BaseAgent):
    """Runs ``sub_agents`` in order, in the same invocation and branch.

    ``on_failure`` (``stop``, ``skip_rest``, ``continue``; default None = google-adk's
    behaviour) decides what a failed step does to the rest. ``until`` (a condition on
    a read-only view of the invocation, e.g. ``lambda ctx: ctx.state.get("done")``)
    ends the sequence early: checked after each step, once it holds the remaining
    steps are recorded as skipped. ``finally_agents`` always run after the
    sub-agents: after failures, exceptions and cancellation too. A step that waits
    for the client pauses the sequence (see :mod:`pyadk.agents.pause`).
    """

    on_failure: FailurePolicy | None = None
    until: Condition | None = None
    finally_agents: list[BaseAgent] = Field(default_factory=list)

    def _children(self) -> list[BaseAgent]:
        return [*self.sub_agents, *self.finally_agents]

    def _run_async_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        if not self.finally_agents:  # the children's events as they come: no layer more
            return self._run_steps(ctx, RunState())
        return self._run_with_finally(ctx)

    def _run_steps(self, ctx: InvocationContext, state: RunState) -> AsyncGenerator[Event, None]:
        return run_in_order(
            ctx,
            self.sub_agents,
            self.on_failure,
            state,
            until=self.until,
            skip_after_until=True,
        )

    async def _run_with_finally(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        pending: Exception | None = None
        state = RunState()
        try:
            async with aclosing(self._run_steps(ctx, state)) as events:
                async for event in events:
                    yield event
        except (asyncio.CancelledError, GeneratorExit):
            await run_detached(ctx, self.finally_agents)
            raise
        except Exception as error:
            pending = error
        if state.paused:
            return  # the sequence is not over: its finally agents run when it is
        async with aclosing(run_in_order(ctx, self.finally_agents, None, RunState())) as events:
            async for event in events:
                yield event
        if pending is not None:
            raise pending

    async def _run_live_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        """Runs the sub-agents live, in order: each LlmAgent step gets a
        ``task_completed`` tool and hands over when it calls it (google-adk's live
        sequence). ``finally_agents``, ``on_failure`` and ``until`` are not applied live.
        The sequence ends when the client closes the live request queue."""
        from pyadk.flows.live_flow import queue_ended

        for sub_agent in self.sub_agents:
            if queue_ended(ctx.live_request_queue):
                return
            async with aclosing(sub_agent.run_live(ctx)) as events:
                async for event in events:
                    yield event
