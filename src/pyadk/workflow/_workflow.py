"""Workflow: an agent that runs a graph of nodes joined by edges."""

from __future__ import annotations

from collections.abc import AsyncGenerator, Iterator
from contextlib import aclosing, contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from pydantic import Field, PrivateAttr

from pyadk.agents.base_agent import BaseAgent
from pyadk.agents.invocation_context import InvocationContext
from pyadk.agents.pause import mark_waiting
from pyadk.events.event import Event
from pyadk.workflow._agent_node import AgentNode
from pyadk.workflow._errors import InputAnswerError, WorkflowConfigurationError
from pyadk.workflow._graph import Graph
from pyadk.workflow._graph_parser import parse_edges
from pyadk.workflow._graph_run import GraphRun
from pyadk.workflow._graph_validation import build_graph
from pyadk.workflow._pause_state import pause_event
from pyadk.workflow._recover import Recovery, plan_recovery
from pyadk.workflow._resume import find_resume


@dataclass
class _NestedRun:
    """A workflow run as a node of another workflow: its input, path and output."""

    workflow: Workflow
    node_input: Any
    path: str
    output: Any = None
    has_output: bool = False


_nested: ContextVar[_NestedRun | None] = ContextVar("pyadk_workflow_nested", default=None)


@contextmanager
def nested_run(workflow: Workflow, node_input: Any, path: str) -> Iterator[_NestedRun]:
    """Runs ``workflow`` inside this block as a node with ``node_input``."""
    run = _NestedRun(workflow, node_input, path)
    token = _nested.set(run)
    try:
        yield run
    finally:
        _nested.reset(token)


class Workflow(BaseAgent):
    """Runs a graph of nodes: functions, agents, other workflows.

    ``edges`` declares the graph: each item is an :class:`Edge` or a chain tuple
    that begins at ``START`` or at a node, e.g. ``(START, fetch, classify,
    {"spam": drop, DEFAULT_ROUTE: answer})``. A tuple inside a chain fans out to
    (or in from) several nodes; a dict routes by the previous node's
    ``ctx.route``. The graph is checked when the workflow is built
    (:class:`GraphValidationError`).

    A run starts the nodes after START with the user's message (or, nested in
    another workflow, with the predecessor's output); each finished node
    triggers the nodes its edges select, passing its output on. Nodes triggered
    together run concurrently, each fan-out target in its own branch. The run
    ends when no node is left to run; its output is the output of the terminal
    node (one without outgoing edges) that produced one.

    A Workflow is an agent: a Runner's root agent, a sub-agent of a workflow
    agent, or a node of another Workflow. Its run ends with the usual outcome
    event; a node failure (after retries) fails it and is raised.

    A node waiting for the client (its agent's approval, credential or
    long-running call; a ``RequestInput``) pauses the run once nothing else can
    run: it writes a pause event, and the workflows around it pause too. The
    client's answer, in a later turn, resumes the run at that node.

    An invocation cut off mid-run (a crash, a cancelled turn) goes on with
    ``Runner.run_async(..., invocation_id=...)``: node runs that had finished are
    not run again (their stored outputs feed their successors), the others run
    again (see :mod:`pyadk.workflow._recover`).
    """

    edges: list[Any] = Field(default_factory=list)
    max_concurrency: int | None = None
    """At most this many nodes run at once (None or <= 0: no limit)."""
    _graph: Graph | None = PrivateAttr(default=None)

    def __init__(self, **data: Any) -> None:
        edges = data.get("edges") or []
        if data.get("sub_agents"):
            raise WorkflowConfigurationError(
                f"Workflow {data.get('name')!r}: declare agents as nodes in edges, not sub_agents."
            )
        # Built before pydantic runs, so a bad graph raises its own error class
        # (GraphValidationError), not a pydantic ValidationError wrapping it.
        graph = build_graph(parse_edges(list(edges))) if edges else None
        super().__init__(**data)
        self._graph = graph
        BaseAgent.model_post_init(self, None)  # the graph's agents get this parent

    @property
    def graph(self) -> Graph | None:
        """The validated graph (None for a workflow without edges)."""
        return self._graph

    def _children(self) -> list[BaseAgent]:
        if self._graph is None:
            return []
        return [n.agent for n in self._graph.nodes.values() if isinstance(n, AgentNode)]

    async def _run_async_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        graph = self._graph
        nested = _nested.get()
        if nested is not None and nested.workflow is self:
            _nested.set(None)  # the nodes below are not this nested run
            node_input, path = nested.node_input, nested.path
        else:
            nested, node_input, path = None, ctx.user_content, f"{self.name}@1"
        if graph is None:
            return
        recovery: Recovery | None = None
        if ctx._counters.recovering:  # an interrupted invocation: goes on from its events
            recovery = plan_recovery(ctx, author=self.name, path=path, graph=graph)
            _forget_targets(ctx, self)
            resume = recovery.resume
        else:
            resume = find_resume(self, ctx, path)
        if resume is not None:
            try:
                resume.check_answers()
            except InputAnswerError:
                # The run stays paused: recorded again after the refused answer, so
                # that the client can answer once more.
                yield pause_event(ctx, author=self.name, path=path, state=resume.state)
                raise
        run = GraphRun(
            name=self.name,
            path=path,
            graph=graph,
            ic=ctx,
            node_input=node_input,
            max_concurrency=self.max_concurrency,
            recovery=recovery,
        )
        if recovery is not None and recovery.still_paused is not None:
            events = run.events(recovery.still_paused)  # nothing answered: keeps waiting
        elif resume is None:
            events = run.events()
        else:
            events = run.events(resume.state, resume.selects, resume.answers)
        async with aclosing(events) as stream:
            async for event in stream:
                yield event
        if run.paused:  # the workflows and agents above stop here too
            mark_waiting(ctx)
        elif nested is not None and run.terminal_outputs:
            nested.output = next(iter(run.terminal_outputs.values()))
            nested.has_output = True


def _forget_targets(ctx: InvocationContext, workflow: Workflow) -> None:
    """Takes ``workflow`` and its agents off the interrupted invocation's resume plan:
    the graph run decides what runs again (an agent node cut off runs again from its
    input, as in google-adk)."""
    counters = ctx._counters
    for name in [workflow.name, *(a.name for a in _agents_under(workflow))]:
        counters.resume_targets.discard(name)
        counters.resume_done.discard(name)
        counters.resume_escalated.discard(name)
        counters.interrupted_calls.pop(name, None)


def _agents_under(agent: BaseAgent) -> list[BaseAgent]:
    found: list[BaseAgent] = []
    for child in agent._children():  # a Workflow's: its agent nodes
        found.append(child)
        found.extend(_agents_under(child))
    return found
