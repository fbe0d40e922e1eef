"""Resuming a graph run cut off mid-way (a crash, a cancelled turn), from its events.

``Runner.run_async(..., invocation_id=...)`` runs the workflow again in the
interrupted invocation (see :mod:`pyadk.agents.interrupted`). As in google-adk 2.x,
the run is replayed from its start (or from the pause it was resuming): a node run
whose events show it finished (``name@run_id`` with an output, a route, or, for a
node that is not ``rerun_on_resume``, any event) is not run again; its recorded
output goes to its successors. A node run that was cut off runs again with the same
run id. A run that had ended paused keeps waiting for the client.

An agent node's finished run is found from its agent's final answer after the node's
input; a nested workflow's from its terminal node's output.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pyadk.agents.llm_agent import LlmAgent
from pyadk.events.outcome import OutcomeStatus
from pyadk.workflow._agent_node import AgentNode, _answer_output, _is_answer
from pyadk.workflow._dynamic_state import DynamicRecord
from pyadk.workflow._errors import WorkflowConfigurationError
from pyadk.workflow._node_events import NODE_INFO, has_output, node_output, node_path, node_route
from pyadk.workflow._node_run import NodeResult
from pyadk.workflow._pause_state import PAUSED, PauseState, answers_in, paused_runs
from pyadk.workflow._request_input import REQUEST_INPUT_FUNCTION_CALL_NAME
from pyadk.workflow._resume import Resume

if TYPE_CHECKING:
    from pyadk.agents.invocation_context import InvocationContext
    from pyadk.events.event import Event
    from pyadk.workflow._graph import Graph


@dataclass
class _Record:
    """What the events of one node run say."""

    output: Any = None
    has_output: bool = False
    route: Any = None
    failed: bool = False
    interrupts: set[str] = field(default_factory=set)
    """The calls it waits on (it stopped to wait for the client)."""
    requests: dict[str, Any] = field(default_factory=dict)
    """Of those, its ``RequestInput`` ids with their answers' JSON schemas."""


@dataclass
class Recovery:
    """What an interrupted run at ``path`` had done: its finished node runs."""

    path: str
    graph: Graph
    events: list[Event]
    """The events of the interrupted invocation."""
    records: dict[str, _Record] = field(default_factory=dict)
    """By node run (``name@run_id``)."""
    resume: Resume | None = None
    """The pause the interrupted run was resuming (after a client's answer)."""
    still_paused: PauseState | None = None
    """The run had ended paused: it keeps waiting."""

    def finished(self, name: str, run_id: int) -> NodeResult | None:
        """How run ``run_id`` of node ``name`` ended before the interruption (None:
        it did not finish and runs again)."""
        node = self.graph.nodes[name]
        key = f"{name}@{run_id}"
        if isinstance(node, AgentNode):
            return self._agent_finished(node, f"{self.path}/{key}")
        record = self.records.get(key)
        if record is None or record.failed:
            return None
        if record.interrupts and not record.has_output:  # it waits for the client still
            return NodeResult(
                waiting=True, interrupts=set(record.interrupts), requests=dict(record.requests)
            )
        if record.has_output or record.route is not None:
            return NodeResult(
                output=record.output, has_output=record.has_output, route=record.route
            )
        if node.rerun_on_resume:
            return None
        return NodeResult()  # finished without an output (google-adk: fast-forwarded)

    def dynamic_records(self, run_path: str) -> dict[str, DynamicRecord]:
        """The dynamic nodes (``ctx.run_node``) under the graph node run at
        ``run_path`` that stored an output: its rerun gets their outputs back
        without running them (one that finished without an output runs again)."""
        prefix = f"{run_path}/"
        found: dict[str, DynamicRecord] = {}
        for event in self.events:
            path = node_path(event)
            if path is None or not path.startswith(prefix):
                continue
            if event.error_code or "error" in (event.custom_metadata or {}):
                found.pop(path, None)  # failed (a retry may store its output later)
            elif has_output(event):
                found[path] = DynamicRecord(output=node_output(event), has_output=True)
        return found

    def _agent_finished(self, node: AgentNode, path: str) -> NodeResult | None:
        for event in self.events:  # a nested workflow: its terminal node's output
            info = (event.custom_metadata or {}).get(NODE_INFO)
            if isinstance(info, dict) and path in (info.get("output_for") or ()):
                return NodeResult(output=node_output(event), has_output=True)
        if not isinstance(node.agent, LlmAgent):
            return None
        start = next(
            (i for i, e in enumerate(self.events) if e.author == "user" and node_path(e) == path),
            None,
        )
        if start is None and not path.endswith("@1"):
            return None  # no input event to tell its runs apart
        for event in self.events if start is None else self.events[start + 1 :]:
            if event.author == node.agent.name and _is_answer(event):
                return NodeResult(output=_answer_output(node.agent, event), has_output=True)
        return None


def plan_recovery(ctx: InvocationContext, *, author: str, path: str, graph: Graph) -> Recovery:
    """How the run at ``path`` of workflow ``author`` goes on in ``ctx``'s interrupted
    invocation. Raises WorkflowConfigurationError when a node that ran is no longer
    in ``graph``."""
    session_events = ctx.session.events
    mine = _since_last_run(
        [e for e in session_events if e.invocation_id == ctx.invocation_id], author, path
    )
    recovery = Recovery(path=path, graph=graph, events=mine)
    prefix = f"{path}/"
    paused_at: int | None = None
    last_node_at = -1
    for index, event in enumerate(mine):
        if event.author != author:
            continue
        metadata = event.custom_metadata or {}
        found = node_path(event)
        if found == path and PAUSED in metadata:
            paused_at = index
            continue
        if found is None or not found.startswith(prefix) or "/" in found[len(prefix) :]:
            continue
        key = found[len(prefix) :]
        name = key.rsplit("@", 1)[0]
        if name not in graph.nodes:
            raise WorkflowConfigurationError(
                f"Workflow {author!r} cannot resume interrupted invocation "
                f"{ctx.invocation_id!r}: node {name!r}, which ran before the interruption, "
                "is no longer in its graph."
            )
        last_node_at = index
        record = recovery.records.setdefault(key, _Record())
        if event.error_code:
            record.failed = True
        elif "error" in metadata:
            continue  # an attempt that was retried
        if event.long_running_tool_ids:
            record.interrupts.update(event.long_running_tool_ids)
            for call in event.get_function_calls():
                if call.name == REQUEST_INPUT_FUNCTION_CALL_NAME and call.id:
                    record.requests[call.id] = (call.args or {}).get("response_schema")
        if has_output(event):
            record.output, record.has_output = node_output(event), True
        route = node_route(event)
        if route is not None:
            record.route = route
    if paused_at is not None and paused_at > last_node_at:
        recovery.still_paused = PauseState.from_json(
            (mine[paused_at].custom_metadata or {})[PAUSED]
        )
        return recovery
    recovery.resume = _resumed_pause(ctx, author, path, graph, session_events)
    return recovery


def _since_last_run(events: list[Event], author: str, path: str) -> list[Event]:
    """The events of the last run of workflow ``author`` at ``path`` in this invocation
    (it may have run before, in a loop). An earlier run ended at its recorded outcome
    (a cancelled run's aside), or is told by a node run (``name@run_id``) that had
    finished and starts again."""
    prefix = f"{path}/"
    start = 0
    finished: set[str] = set()
    for index, event in enumerate(events):
        if event.author != author:
            continue
        outcome = event.actions.agent_outcome
        if event.actions.end_of_agent:
            if outcome is None or outcome.status is not OutcomeStatus.CANCELLED:
                start, finished = index + 1, set()
            continue
        found = node_path(event) or ""
        key = found[len(prefix) :]
        if not found.startswith(prefix) or "/" in key:
            continue
        if key in finished:  # the same node run again: a new run of the workflow
            start, finished = index, set()
        if has_output(event) or node_route(event) is not None:
            finished.add(key)
    return events[start:]


def _resumed_pause(
    ctx: InvocationContext, author: str, path: str, graph: Graph, events: list[Event]
) -> Resume | None:
    """The pause of an earlier invocation that this one's message answered."""
    answers = answers_in(ctx.user_content)
    if not answers:
        return None
    first = next(i for i, e in enumerate(events) if e.invocation_id == ctx.invocation_id)
    for index, state in paused_runs(events[:first], author=author, path=path):
        del index
        waited = {i for w in state.waiting.values() for i in w.interrupts}
        if waited & answers.keys():
            return Resume(state, graph, answers)
    return None
