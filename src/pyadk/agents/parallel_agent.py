"""ParallelAgent: runs its sub-agents concurrently, each in its own branch."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from contextlib import aclosing
from typing import Literal

from pyadk.agents.base_agent import BaseAgent
from pyadk.agents.invocation_context import InvocationContext
from pyadk.agents.pause import mark_still_waiting, resume_branches
from pyadk.events.event import Event
from pyadk.utils.event_streams import merge_event_streams


class ParallelAgent(BaseAgent):
    """Runs every sub-agent at the same time.

    Each sub-agent runs in branch ``<branch>.<self>.<sub>`` (``<self>.<sub>`` at the
    root), so it sees the shared history but not its siblings' turns. Events are
    yielded as they come; a branch waits until its previous event was consumed (and
    persisted), so every branch's state changes are applied.

    ``failure="fail_fast"`` (default, as google-adk): an exception in one branch
    cancels the others and propagates. ``failure="collect"``: the failing branch ends
    with a failure outcome, the others run to the end, and the results and state of
    every finished branch are kept.
    """

    failure: Literal["fail_fast", "collect"] = "fail_fast"

    async def _run_async_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        if not self.sub_agents:
            return
        prefix = f"{ctx.branch}.{self.name}" if ctx.branch else self.name
        branches = self.sub_agents
        idle: list[BaseAgent] = []
        if ctx._counters.resume_targets:  # resuming: only the branches that waited
            branches = resume_branches(ctx, branches)
            idle = [b for b in self.sub_agents if b not in branches]
        streams = [
            sub.run_async(ctx.model_copy(update={"branch": f"{prefix}.{sub.name}"}))
            for sub in branches
        ]
        merged = merge_event_streams(streams, collect_errors=self.failure == "collect")
        async with aclosing(merged) as events:
            async for event in events:
                yield event
        if idle:  # a branch not resumed by this answer may still wait for its own
            mark_still_waiting(ctx, idle)
