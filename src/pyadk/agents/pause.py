"""Pausing workflows while an agent waits for the client, and resuming them there.

An agent *waits* when its run ends on a call the client must answer: a long-running
tool that returned nothing, or a tool call held back for approval. The workflow agents
above it (sequential, loop; a parallel agent's other branches finish) then run nothing
more in this invocation, and ``finally_agents`` wait too. When the client's answer
comes, the Runner starts again from the root with the waiting agent as the *resume
target*: each workflow agent starts at the child that holds it (a parallel agent runs
only that branch), an LlmAgent above it hands the turn straight to it, and the
workflow goes on from there as if it had never stopped.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyadk.agents.base_agent import BaseAgent
    from pyadk.agents.invocation_context import InvocationContext


def mark_waiting(ctx: InvocationContext) -> None:
    """Records that ``ctx.agent``'s run ended waiting for the client."""
    ctx._counters.waiting.add(ctx.agent.name)


def waiting_under(ctx: InvocationContext, agent: BaseAgent) -> bool:
    """True when ``agent`` or one of its descendants waits for the client."""
    waiting = ctx._counters.waiting
    return bool(waiting) and _holds_target(agent, waiting)


def set_resume_targets(ctx: InvocationContext, agent_names: set[str]) -> None:
    """Makes this invocation resume at the agents ``agent_names`` (the ones whose calls
    the user's message answers; see the module docstring)."""
    ctx._counters.resume_targets = set(agent_names)


def _holds_target(agent: BaseAgent, names: set[str]) -> bool:
    """True when ``agent`` or a descendant has one of ``names``."""
    return any(agent.find_agent(name) is not None for name in names)


def resume_start(ctx: InvocationContext, children: Sequence[BaseAgent]) -> int:
    """The index of the child to start at: the first one holding a resume target (0
    when there is none). Reaching a target itself ends its resume."""
    targets = ctx._counters.resume_targets
    for index, child in enumerate(children):
        if _holds_target(child, targets):
            targets.discard(child.name)
            return index
    return 0


def resume_choice(ctx: InvocationContext, children: Sequence[BaseAgent]) -> list[BaseAgent]:
    """The children holding a resume target (reaching them ends their resume)."""
    targets = ctx._counters.resume_targets
    chosen = [child for child in children if _holds_target(child, targets)]
    targets.difference_update(child.name for child in chosen)
    return chosen


def resume_branches(ctx: InvocationContext, branches: Sequence[BaseAgent]) -> list[BaseAgent]:
    """The branches of a parallel agent to run when resuming: those holding a target."""
    return resume_choice(ctx, branches) or list(branches)


def resume_handoff(ctx: InvocationContext) -> BaseAgent | None:
    """For an LlmAgent on the way to a resume target: the descendant to hand the turn
    to directly (None when the target is the agent itself, or elsewhere)."""
    targets = ctx._counters.resume_targets
    agent = ctx.agent
    if agent.name in targets:
        targets.discard(agent.name)
        return None
    for name in sorted(targets):
        found = agent.find_sub_agent(name)
        if found is not None:
            return found
    return None


def mark_still_waiting(ctx: InvocationContext, branches: Sequence[BaseAgent]) -> None:
    """Marks as waiting those of ``branches`` (not run in this invocation) that left a
    call the client has not answered yet: the workflow above stays paused."""
    events = ctx.session.events
    answered = {r.id for e in events for r in e.get_function_responses() if r.id}
    for branch in branches:
        pending = (
            call_id
            for event in events
            if event.long_running_tool_ids and branch.find_agent(event.author) is not None
            for call_id in event.long_running_tool_ids
        )
        if any(call_id not in answered for call_id in pending):
            ctx._counters.waiting.add(branch.name)
