"""LoopAgent: runs its sub-agents in a loop until escalation or max_iterations."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from contextlib import aclosing

from pyadk.agents.base_agent import BaseAgent
from pyadk.agents.conditions import Condition
from pyadk.agents.failure_policy import FailurePolicy, RunState, run_in_order
from pyadk.agents.invocation_context import InvocationContext
from pyadk.events.event import Event
from pyadk.utils.fast_models import set_field


class LoopAgent(BaseAgent):
    """Repeats ``sub_agents`` in order.

    Stops after ``max_iterations`` rounds (None: no limit), when an event escalates
    (``exit_loop``, or ``actions.escalate``) or when ``until`` (a condition on a
    read-only view of the invocation, e.g. ``lambda ctx: ctx.state.get("approved")``)
    holds after a sub-agent: no model has to call a tool to end the loop. An
    escalation ends only the nearest enclosing loop: an outer loop goes on.
    ``on_failure`` works as in SequentialAgent: ``stop`` and ``skip_rest`` end the
    loop at a failed step, ``continue`` goes on.

    A round that pauses for the client (an approval, a credential, a long-running
    tool) resumes when the answer comes, and the rounds before it still count towards
    ``max_iterations``; so do they when an interrupted invocation is resumed (after a
    crash). The first stored event of each round, and each event that waits, records
    the rounds completed by this loop and the loops around it
    (``actions.agent_state["loop_rounds"]``); a round that stores no event is not
    counted on such a resume.
    """

    max_iterations: int | None = None
    on_failure: FailurePolicy | None = None
    until: Condition | None = None

    async def _run_async_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        counters = ctx._counters
        iteration = _rounds_done(ctx, self.name) if counters.resume_targets else 0
        try:
            while self.max_iterations is None or iteration < self.max_iterations:
                iteration += 1
                counters.loop_rounds[self.name] = iteration - 1
                first = True
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
                        # The round's first stored event, and one that may pause the
                        # loop, keep the count.
                        if (first and not event.partial) or event.long_running_tool_ids:
                            first = False
                            _record_rounds(event, counters.loop_rounds)
                        yield event
                if (
                    state.escalated
                    or state.paused
                    or state.until_met
                    or state.stopped_by is not None
                ):
                    return
        finally:
            counters.loop_rounds.pop(self.name, None)


_ROUNDS = "loop_rounds"


def _record_rounds(event: Event, running: dict[str, int]) -> None:
    """Records on ``event`` how many rounds each running loop had completed."""
    actions = event.actions
    state = actions.agent_state
    rounds = state.get(_ROUNDS) if state else None
    # A new dict each time: the event's own is never changed in place.
    set_field(actions, "agent_state", {**(state or {}), _ROUNDS: {**(rounds or {}), **running}})


def _rounds_done(ctx: InvocationContext, loop_name: str) -> int:
    """The rounds ``loop_name`` had completed in the run this invocation resumes: when
    it paused for the client's answer, or (resuming after an interruption) as the
    latest of this invocation's events that counts them says, if that event belongs to
    the current rounds of the loops around it (else this loop had not started in them)."""
    counters = ctx._counters
    events = ctx.session.events
    if not counters.recovering:
        for event in reversed(events):
            if event.long_running_tool_ids:
                return _count(event, loop_name)
        return 0
    around = {name: done for name, done in counters.loop_rounds.items() if name != loop_name}
    for event in reversed(events):
        if event.invocation_id != ctx.invocation_id:
            break
        rounds = (event.actions.agent_state or {}).get(_ROUNDS)
        if not rounds or loop_name not in rounds:
            continue
        if any(rounds.get(name) != done for name, done in around.items()):
            return 0
        return _count(event, loop_name)
    return 0


def _count(event: Event, loop_name: str) -> int:
    completed = (event.actions.agent_state or {}).get(_ROUNDS, {}).get(loop_name)
    return completed if isinstance(completed, int) else 0
