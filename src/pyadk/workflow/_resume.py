"""Deciding whether a workflow run goes on from a pause, and which nodes run again."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pyadk.agents.pause import holds_resume_target
from pyadk.workflow._agent_node import AgentNode
from pyadk.workflow._errors import WorkflowConfigurationError
from pyadk.workflow._pause_state import PauseState, WaitingNode, answers_in, paused_runs

if TYPE_CHECKING:
    from pyadk.agents.invocation_context import InvocationContext
    from pyadk.workflow._graph import Graph
    from pyadk.workflow._workflow import Workflow


@dataclass
class Resume:
    """A paused run to go on with, and what the client's message answers."""

    state: PauseState
    graph: Graph
    answers: dict[str, Any]
    """The client's function responses, by call id."""
    targets: set[str] = field(default_factory=set)

    def selects(self, name: str, waiting: WaitingNode) -> bool:
        """True when waiting node ``name`` runs again: the message answers one of its
        calls, or (an agent node) the Runner resumes an agent inside it."""
        if any(i in self.answers for i in waiting.interrupts):
            return True
        node = self.graph.nodes[name]
        return isinstance(node, AgentNode) and any(
            node.agent.find_agent(target) is not None for target in self.targets
        )

    def selects_any(self) -> bool:
        return any(self.selects(name, w) for name, w in self.state.waiting.items())

    def check_answers(self) -> None:
        """Reads the answers of the nodes that go on against their requests' schemas;
        raises WorkflowDataError for one that does not fit (before anything runs)."""
        for name, waiting in self.state.waiting.items():
            if self.selects(name, waiting):
                waiting.with_answers(self.answers)


def find_resume(workflow: Workflow, ctx: InvocationContext, path: str) -> Resume | None:
    """The paused run of ``workflow`` at ``path`` this invocation goes on with (None:
    a new run). An answer sent again, whose run went on already, resumes a run with
    nothing left to do. Raises WorkflowConfigurationError when the Runner resumes an
    agent inside the workflow but no paused run of it waits for that answer."""
    graph = workflow.graph
    targets = ctx._counters.resume_targets
    held = holds_resume_target(ctx, [workflow])
    answers = answers_in(ctx.user_content)
    if graph is None or (not held and not answers):
        return None
    targets.discard(workflow.name)  # reached: its own resume ends here
    records = paused_runs(ctx.session.events, author=workflow.name, path=path)
    answered_at = _earlier_answers(ctx, answers)
    for index, state in records:  # latest first: the run waiting on an answered call
        waited = {i for w in state.waiting.values() for i in w.interrupts}
        # answered after this pause record (a refused answer is followed by a new record
        # of the same pause, so it does not count)
        stale = {i for i, at in answered_at.items() if at > index}
        fresh = {i: v for i, v in answers.items() if i not in stale}
        if waited & fresh.keys():
            return Resume(state, graph, fresh, set(targets))
        if waited & stale:  # sent again: that run went on when it first came
            return Resume(PauseState(), graph, {})
    fresh = {i: v for i, v in answers.items() if i not in answered_at}
    if held and records and (fresh or not answers):
        resume = Resume(records[0][1], graph, fresh, set(targets))
        if resume.selects_any():
            return resume
    if held:
        raise WorkflowConfigurationError(
            f"Workflow {workflow.name!r} cannot resume: no paused run of it (at "
            f"{path!r}) waits for the client's answer in this message."
        )
    return None


def _earlier_answers(ctx: InvocationContext, answers: dict[str, Any]) -> dict[str, int]:
    """Those of ``answers`` that a message of an earlier invocation answered already,
    with the position in the session's events of the latest such message."""
    if not answers:
        return {}
    return {
        response.id: position
        for position, event in enumerate(ctx.session.events)
        if event.author == "user" and event.invocation_id != ctx.invocation_id
        for response in event.get_function_responses()
        if response.id in answers
    }
