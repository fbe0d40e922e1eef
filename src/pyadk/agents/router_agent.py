"""RouterAgent: runs the sub-agents a condition on the state picks at run time."""

from __future__ import annotations

from collections.abc import AsyncGenerator, Awaitable, Callable, Sequence
from contextlib import aclosing

from pyadk.agents.base_agent import BaseAgent
from pyadk.agents.conditions import call_with_view
from pyadk.agents.failure_policy import FailurePolicy, RunState, run_in_order
from pyadk.agents.invocation_context import InvocationContext
from pyadk.agents.pause import holds_resume_target, resume_choice
from pyadk.agents.readonly_context import ReadonlyContext
from pyadk.events.event import Event

RouteResult = str | Sequence[str] | None
Route = Callable[[ReadonlyContext], RouteResult | Awaitable[RouteResult]]
"""Picks sub-agents by name from a read-only view of the invocation (sync or async)."""


class RouterAgent(BaseAgent):
    """Runs the sub-agent(s) that ``route`` picks when the router runs.

    ``route`` gets a read-only view of the invocation (``ctx.state``,
    ``ctx.outcome_of(name)``, ``ctx.user_content``) and returns a sub-agent's name, a
    list of names (run in that order, under ``on_failure`` as in SequentialAgent) or
    None (run nothing). The sub-agents not picked are recorded as skipped, so their
    outcomes say why they did not run. A name that is not a sub-agent raises
    ValueError. When a picked agent waited for the client, the answer resumes that
    agent without asking ``route`` again; after an interruption, ``route`` is asked
    again only for the picks after the agent that was running.
    """

    route: Route
    on_failure: FailurePolicy | None = None

    async def _run_async_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        if holds_resume_target(ctx, self.sub_agents):  # resuming inside a picked agent
            chosen = await self._resumed_picks(ctx)
        else:
            chosen = self._picked(await call_with_view(self.route, ctx))
            for child in self.sub_agents:
                if child not in chosen:
                    event = child.skip_event(ctx, f"not picked by router {self.name}")
                    if event is not None:
                        yield event
        async with aclosing(run_in_order(ctx, chosen, self.on_failure, RunState())) as events:
            async for event in events:
                yield event

    async def _resumed_picks(self, ctx: InvocationContext) -> list[BaseAgent]:
        """The agents to run when resuming: the picked agent that waited or was cut
        off (unless its run had finished), then, after an interruption, the picks that
        came after it (``route`` is asked again for those)."""
        held = [c for c in self.sub_agents if holds_resume_target(ctx, [c])]
        chosen = resume_choice(ctx, self.sub_agents)
        if not ctx._counters.recovering:
            return chosen
        picks = self._picked(await call_with_view(self.route, ctx))
        after = picks[picks.index(held[-1]) + 1 :] if held[-1] in picks else []
        return [*chosen, *after]

    def _picked(self, names: RouteResult) -> list[BaseAgent]:
        """The sub-agents ``names`` (what ``route`` returned) stands for."""
        if names is None:
            return []
        if isinstance(names, str):
            names = [names]
        by_name = {child.name: child for child in self.sub_agents}
        picked: list[BaseAgent] = []
        for name in names:
            child = by_name.get(name) if isinstance(name, str) else None
            if child is None:
                known = ", ".join(sorted(by_name)) or "none"
                raise ValueError(
                    f"RouterAgent {self.name!r}: route returned {name!r}, which is not one "
                    f"of its sub-agents ({known})."
                )
            picked.append(child)
        return picked
