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
    return bool(waiting) and any(agent.find_agent(name) is not None for name in waiting)


def set_resume_target(ctx: InvocationContext, agent_name: str) -> None:
    """Makes this invocation resume at ``agent_name`` (see the module docstring)."""
    ctx._counters.resume_target = agent_name


def resume_start(ctx: InvocationContext, children: Sequence[BaseAgent]) -> int:
    """The index of the child to start at: the one holding the resume target (0 when
    there is none). Reaching the target itself ends the resume."""
    target = ctx._counters.resume_target
    if target is None:
        return 0
    for index, child in enumerate(children):
        if child.find_agent(target) is not None:
            if child.name == target:
                ctx._counters.resume_target = None
            return index
    return 0


def resume_handoff(ctx: InvocationContext) -> BaseAgent | None:
    """For an LlmAgent on the way to the resume target: the descendant to hand the turn
    to directly (None when the target is the agent itself, or elsewhere)."""
    target = ctx._counters.resume_target
    if target is None:
        return None
    agent = ctx.agent
    if agent.name == target:
        ctx._counters.resume_target = None
        return None
    return agent.find_sub_agent(target)
