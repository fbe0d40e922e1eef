"""Resuming an invocation that was cut off (a crashed process, a killed server).

Every event is stored as it happens, so the session says how far an invocation got:
for each branch, the agent that stored the last event. ``Runner.run_async(...,
invocation_id=...)`` runs the root again in that invocation with those agents as
resume targets (see :mod:`pyadk.agents.pause`): workflow agents start at the step
holding one (after it, when its run had finished), an LlmAgent goes on from its
history, and calls that got no result run again only when their tool is
``idempotent``; the others wait for a person's approval, since they may have run.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from pyadk.events.client_requests import CLIENT_REQUEST_NAMES
from pyadk.events.outcome import OutcomeStatus

if TYPE_CHECKING:
    from pyadk import types
    from pyadk.agents.base_agent import BaseAgent
    from pyadk.events.event import Event
    from pyadk.sessions.session import Session


class InvocationNotFoundError(ValueError):
    """The session holds no event of the invocation asked for."""


class InvocationNotInterruptedError(ValueError):
    """The invocation waits for the client's answer: it is paused, not interrupted."""


@dataclass
class ResumePlan:
    """Where an interrupted invocation goes on."""

    user_content: types.Content | None = None
    """The message that started the invocation."""
    targets: set[str] = field(default_factory=set)
    """The agents to resume at: each branch's last author."""
    done: set[str] = field(default_factory=set)
    """The targets whose run had finished (their last event is a final answer or an
    outcome)."""
    interrupted_calls: dict[str, Event] = field(default_factory=dict)
    """Per target, its model event whose calls got no result."""
    escalated: set[str] = field(default_factory=set)
    """The finished targets whose last event escalated (``exit_loop``)."""


def plan_resume(session: Session, invocation_id: str, root: BaseAgent) -> ResumePlan:
    """How to resume ``invocation_id`` of ``session`` under ``root``.

    Raises InvocationNotFoundError when the session has no event of it, and
    InvocationNotInterruptedError when one of its agents waits for the client.
    """
    events = session.events
    mine = [event for event in events if event.invocation_id == invocation_id]
    if not mine:
        raise InvocationNotFoundError(
            f"Session {session.id!r} has no invocation {invocation_id!r} to resume."
        )
    plan = ResumePlan()
    last_by_branch: dict[str | None, Event] = {}
    for event in mine:
        if event.author == "user":
            if plan.user_content is None:
                plan.user_content = event.content
        elif (
            not event.partial
            and not _cancelled(event)
            and root.find_agent(event.author) is not None
        ):
            last_by_branch[event.branch] = event
    answered = {r.id for event in events for r in event.get_function_responses() if r.id}
    for event in last_by_branch.values():
        _plan_branch(plan, invocation_id, event, answered)
    return plan


def _cancelled(event: Event) -> bool:
    """True for the outcome events a cancelled run leaves (the interruption's own
    bookkeeping, not progress)."""
    outcome = event.actions.agent_outcome
    return (
        outcome is not None
        and outcome.status is OutcomeStatus.CANCELLED
        and event.is_outcome_event()
    )


def _plan_branch(plan: ResumePlan, invocation_id: str, last: Event, answered: set[str]) -> None:
    """Adds what ``last`` (a branch's last event) says to ``plan``."""
    agent = last.author
    waiting = [i for i in last.long_running_tool_ids or () if i not in answered]
    if waiting and not _graph_node_event(last):  # a graph run decides (pyadk.workflow)
        raise InvocationNotInterruptedError(
            f"Invocation {invocation_id!r} is not interrupted: agent {agent!r} waits for "
            "the client's answer to its calls; send the answer instead of resuming."
        )
    transfer = last.actions.transfer_to_agent
    if transfer:  # the transfer was decided: resume at the agent it goes to
        plan.targets.add(transfer)
        return
    plan.targets.add(agent)
    unanswered = [
        call
        for call in last.get_function_calls()
        if call.id not in answered and call.name not in CLIENT_REQUEST_NAMES
    ]
    if unanswered:
        plan.interrupted_calls[agent] = last
    elif (last.is_final_response() or last.is_outcome_event()) and not _graph_node_event(last):
        plan.done.add(agent)
        outcome = last.actions.agent_outcome
        if last.actions.escalate or (
            outcome is not None and outcome.status is OutcomeStatus.ESCALATED
        ):
            plan.escalated.add(agent)


def _graph_node_event(event: Event) -> bool:
    """A node's event inside a graph workflow (``pyadk.workflow``): the workflow had
    more to run (its own end is its outcome event, which carries no node)."""
    metadata = event.custom_metadata
    return metadata is not None and "node_info" in metadata and event.actions.agent_outcome is None
