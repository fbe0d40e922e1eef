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

    A round that pauses for the client (an approval, a credential, a long-running
    tool) resumes when the answer comes, and the rounds before it still count towards
    ``max_iterations``: the event that waits records them
    (``actions.agent_state["loop_rounds"][<loop name>]``).
    """

    max_iterations: int | None = None
    on_failure: FailurePolicy | None = None
    until: Condition | None = None

    async def _run_async_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        iteration = _rounds_before_pause(ctx, self.name) if ctx._counters.resume_targets else 0
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
                    if event.long_running_tool_ids:  # it may pause the loop: keep the count
                        _record_rounds(event, self.name, iteration - 1)
                    yield event
            if state.escalated or state.paused or state.until_met or state.stopped_by is not None:
                return


_ROUNDS = "loop_rounds"


def _record_rounds(event: Event, loop_name: str, completed: int) -> None:
    """Records on a waiting event how many rounds ``loop_name`` had completed."""
    actions = event.actions
    state = dict(actions.agent_state or {})
    state[_ROUNDS] = {**state.get(_ROUNDS, {}), loop_name: completed}
    actions.agent_state = state


def _rounds_before_pause(ctx: InvocationContext, loop_name: str) -> int:
    """The rounds ``loop_name`` had completed when it paused for the client's answer
    this invocation resumes after (0 when it is not resuming such a pause)."""
    if ctx._counters.recovering:  # resuming after a crash, not after an answer
        return 0
    for event in reversed(ctx.session.events):
        if event.long_running_tool_ids:
            rounds = (event.actions.agent_state or {}).get(_ROUNDS, {})
            completed = rounds.get(loop_name)
            return completed if isinstance(completed, int) else 0
    return 0
