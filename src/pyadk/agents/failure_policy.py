"""Running child agents under a failure policy (shared by Sequential and Loop agents)."""

from __future__ import annotations

import logging
from collections.abc import AsyncGenerator, Sequence
from contextlib import aclosing
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from pyadk.agents.conditions import Condition, holds
from pyadk.agents.pause import resume_start, waiting_under
from pyadk.errors import InvocationStop
from pyadk.events.outcome import AgentOutcome, OutcomeStatus

if TYPE_CHECKING:
    from pyadk.agents.base_agent import BaseAgent
    from pyadk.agents.invocation_context import InvocationContext
    from pyadk.events.event import Event

logger = logging.getLogger(__name__)

FailurePolicy = Literal["stop", "skip_rest", "continue"]
"""What a workflow agent does when a child fails (outcome failure or timed_out):

- ``stop``: run no further children; an exception is re-raised (after finally agents).
- ``skip_rest``: record every remaining child as skipped; an exception is absorbed.
- ``continue``: go on with the next child; an exception is absorbed.

``None`` (the default) is google-adk's behaviour: failures do not stop anything and
exceptions propagate.
"""


@dataclass
class RunState:
    """What happened while running children: the failure that stopped them, if any."""

    stopped_by: AgentOutcome | None = None
    escalated: bool = False
    paused: bool = False
    """A child waits for the client: nothing more runs in this invocation."""
    until_met: bool = False
    """The ``until`` condition held after a child: no further child ran."""


async def run_in_order(
    ctx: InvocationContext,
    children: Sequence[BaseAgent],
    policy: FailurePolicy | None,
    state: RunState,
    *,
    stop_on_escalation: bool = False,
    until: Condition | None = None,
    skip_after_until: bool = False,
) -> AsyncGenerator[Event, None]:
    """Runs ``children`` one after another under ``policy``.

    With ``stop_on_escalation`` (loops), an escalating event not yet handled by an
    inner loop is marked handled; the escalating child finishes its run (so its
    outcome and after-callbacks are yielded) and no further child runs. ``until`` is
    checked after each child: once it holds, no further child runs (with
    ``skip_after_until`` each of them is recorded as skipped).
    """
    counters = ctx._counters
    if counters.resume_targets:
        children = children[resume_start(ctx, children) :]
    for child in children:
        if stop_on_escalation and counters.resumed_escalation:
            break
        if state.until_met:
            if not skip_after_until:
                return
            event = child.skip_event(ctx, f"skipped because {ctx.agent.name}'s until held")
            if event is not None:
                yield event
            continue
        if state.stopped_by is not None:
            if policy != "skip_rest":
                return
            reason = f"{state.stopped_by.agent} {state.stopped_by.describe()}"
            event = child.skip_event(ctx, f"skipped because {reason}")
            if event is not None:
                yield event
            continue
        try:
            events = child.run_async(ctx)
            try:  # aclosing(), without its three calls per child
                async for event in events:
                    if (
                        stop_on_escalation
                        and event.actions.escalate
                        and not ctx.is_escalation_handled(event)
                    ):
                        ctx.mark_escalation_handled(event)
                        state.escalated = True
                    yield event
            finally:
                await events.aclose()
        except Exception as error:
            if policy is None or policy == "stop" or isinstance(error, InvocationStop):
                raise
            logger.info("Agent %r raised; %s policy goes on", child.name, policy)
        if state.escalated:
            return
        if counters.waiting and waiting_under(ctx, child):
            state.paused = True
            return
        if policy in ("stop", "skip_rest"):
            outcome = ctx.outcome_in_this_invocation(child.name)
            if outcome is not None and outcome.failed:
                state.stopped_by = outcome
                continue
        if until is not None and await holds(until, ctx):
            state.until_met = True
    if stop_on_escalation and counters.resumed_escalation:
        # Resuming after an interruption that came right after an escalation below
        # this loop: the nearest loop ends, as it would have then.
        counters.resumed_escalation = False
        state.escalated = True


async def run_detached(ctx: InvocationContext, agents: Sequence[BaseAgent]) -> None:
    """Runs ``agents`` when nothing can be yielded any more (cancellation): their events
    are appended to the session directly."""
    for agent in agents:
        try:
            async with aclosing(agent.run_async(ctx)) as events:
                async for event in events:
                    if not event.partial:
                        await ctx.session_service.append_event(ctx.session, event)
        except Exception:
            logger.exception("Finally agent %r failed during cancellation", agent.name)


def skipped_outcome(agent_name: str, reason: str) -> AgentOutcome:
    """A skipped outcome for ``agent_name``."""
    return AgentOutcome(agent=agent_name, status=OutcomeStatus.SKIPPED, reason=reason)
