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
    from pyadk.agents.invocation_context import InvocationContext, _InvocationCounters


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
    """The index of the child to start at: the last one holding a resume target (0
    when there is none), or the one after it when that child is a target whose run had
    finished before an interruption. Reaching a target itself ends its resume."""
    counters = ctx._counters
    targets = counters.resume_targets
    index = next(
        (i for i in range(len(children) - 1, -1, -1) if _holds_target(children[i], targets)),
        None,
    )
    if index is None:
        return 0
    for earlier in children[:index]:  # ran before the target's step: nothing to resume
        stale = [name for name in targets if earlier.find_agent(name)]
        targets.difference_update(stale)
        counters.resume_done.difference_update(stale)  # their later runs are new ones
    child = children[index]
    targets.discard(child.name)
    if child.name in counters.resume_done:
        counters.resume_done.discard(child.name)
        if child.name in counters.resume_escalated:
            counters.resumed_escalation = True
        return index + 1
    return index


def holds_resume_target(ctx: InvocationContext, children: Sequence[BaseAgent]) -> bool:
    """True when one of ``children`` holds a resume target."""
    targets = ctx._counters.resume_targets
    return bool(targets) and any(_holds_target(child, targets) for child in children)


def resume_choice(ctx: InvocationContext, children: Sequence[BaseAgent]) -> list[BaseAgent]:
    """The children holding a resume target (reaching them ends their resume), less
    those whose run had finished before an interruption."""
    counters = ctx._counters
    targets = counters.resume_targets
    chosen = [child for child in children if _holds_target(child, targets)]
    targets.difference_update(child.name for child in chosen)
    return _not_done(counters, chosen)


def resume_branches(ctx: InvocationContext, branches: Sequence[BaseAgent]) -> list[BaseAgent]:
    """The branches of a parallel agent to run when resuming. After a client's answer:
    those holding a target. After an interruption: every branch whose run had not
    finished (a branch that had not started yet runs from its beginning)."""
    counters = ctx._counters
    if counters.recovering:
        for branch in branches:
            counters.resume_targets.discard(branch.name)
        return _not_done(counters, branches)
    return resume_choice(ctx, branches) or list(branches)


def _not_done(counters: _InvocationCounters, agents: Sequence[BaseAgent]) -> list[BaseAgent]:
    """``agents`` less those whose run had finished before an interruption (each of
    those is taken off the finished list: later runs of it in this turn are new)."""
    done = counters.resume_done
    if not done:
        return list(agents)
    kept = [agent for agent in agents if agent.name not in done]
    done.difference_update(agent.name for agent in agents)
    return kept


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
