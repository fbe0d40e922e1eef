"""GraphRun: one run of a workflow graph, nodes scheduled as their triggers arrive."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from collections.abc import AsyncGenerator, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pyadk.events.event import Event
from pyadk.events.event_actions import EventActions
from pyadk.workflow._agent_node import AgentNode
from pyadk.workflow._base_node import START
from pyadk.workflow._dynamic_nodes import DynamicRuns
from pyadk.workflow._dynamic_state import DynamicRecord
from pyadk.workflow._errors import DynamicNodeFailError, WorkflowConfigurationError
from pyadk.workflow._graph import Graph
from pyadk.workflow._node_events import node_event
from pyadk.workflow._node_run import NodeResult, NodeRun
from pyadk.workflow._pause_state import PauseState, WaitingNode, pause_event

if TYPE_CHECKING:
    from pyadk.agents.invocation_context import InvocationContext
    from pyadk.workflow._recover import Recovery

logger = logging.getLogger(__name__)


@dataclass
class _Trigger:
    node_input: Any
    branch: str | None


def _common_branch(branches: list[str | None]) -> str | None:
    """The longest dot-segment prefix the branches share (None when none)."""
    split = [b.split(".") for b in branches if b]
    if len(split) != len(branches) or not split:
        return None
    prefix: list[str] = []
    for segments in zip(*split, strict=False):
        if len(set(segments)) != 1:
            break
        prefix.append(segments[0])
    return ".".join(prefix) or None


class GraphRun:
    """Runs ``graph`` for one workflow invocation and yields the events of its nodes.

    Every node runs in its own task; a node hands over its events one at a time
    and waits until the session has each, so a later node sees the state written
    before it. A node triggered again while it runs waits for that run to end.
    The first failure (after retries) cancels the other nodes and is raised.

    A node that ends waiting for the client triggers nothing; the other nodes run
    on until nothing else can run, then the run writes its pause event and ends
    (``paused``). Given the ``resume`` state of such a run, the run goes on: the
    waiting nodes ``resume_node`` selects run again (their run ids kept), the
    others keep waiting.
    """

    def __init__(
        self,
        *,
        name: str,
        path: str,
        graph: Graph,
        ic: InvocationContext,
        node_input: Any,
        max_concurrency: int | None,
        recovery: Recovery | None = None,
    ) -> None:
        self.name = name
        self.path = path
        self.graph = graph
        self.ic = ic
        self.node_input = node_input
        self.max_concurrency = max_concurrency if max_concurrency and max_concurrency > 0 else None
        self.recovery = recovery
        """Set when resuming an interrupted run: node runs that had finished are not
        run again (see :mod:`pyadk.workflow._recover`)."""
        self.outputs: dict[str, Any] = {}
        self.branches: dict[str, str | None] = {}
        self.terminal_outputs: dict[str, Any] = {}
        self._triggers: dict[str, deque[_Trigger]] = {}
        self._arrivals: dict[str, set[str]] = {}
        self._running: dict[str, asyncio.Task[None]] = {}
        self._runs: dict[str, int] = {}
        self._inbox: asyncio.Queue[tuple[str, Any, Any]] = asyncio.Queue()
        self._closing = False
        self._started: dict[str, tuple[int, _Trigger]] = {}
        self.waiting: dict[str, WaitingNode] = {}
        """The nodes waiting for the client, by name."""
        self._carried: dict[str, WaitingNode] = {}
        """What a resumed node still waits for, should its run end waiting again."""

    @property
    def paused(self) -> bool:
        """True when the run ended with nodes waiting for the client."""
        return bool(self.waiting)

    async def events(
        self,
        resume: PauseState | None = None,
        resume_node: Callable[[str, WaitingNode], bool] | None = None,
        answers: dict[str, Any] | None = None,
    ) -> AsyncGenerator[Event, None]:
        """The nodes' events, in the order the session receives them.

        With ``resume`` (a paused run's state) the run goes on from it:
        ``resume_node(name, waiting_node)`` says which waiting nodes go on;
        ``answers`` are the client's function responses by call id."""
        try:
            if resume is None:
                self.outputs[START.name] = self.node_input
                self.branches[START.name] = self.ic.branch
                self._trigger_successors(START.name, self.node_input, None, None)
            else:
                self._restore(resume, resume_node or (lambda name, node: False), answers or {})
            while True:
                self._start_ready()
                if not self._running and self._inbox.empty():
                    break
                kind, name, payload = await self._inbox.get()
                if kind == "event":
                    event, consumed = payload
                    try:
                        yield event
                    finally:
                        if not consumed.done():
                            consumed.set_result(None)
                elif kind == "done":
                    self._running.pop(name, None)
                    self._complete(name, payload)
                else:
                    self._running.pop(name, None)
                    raise payload
        finally:
            await self._cancel_all()
        if self.waiting:
            yield pause_event(self.ic, author=self.name, path=self.path, state=self._pause_state())
            return
        if len(self.terminal_outputs) > 1:
            raise WorkflowConfigurationError(
                f"Workflow {self.name!r}: {len(self.terminal_outputs)} terminal nodes "
                f"({sorted(self.terminal_outputs)}) produced an output; a workflow has at "
                "most one. Join the branches with a JoinNode."
            )

    # -- scheduling -------------------------------------------------------------------
    def _add_trigger(self, target: str, node_input: Any, branch: str | None) -> None:
        self._triggers.setdefault(target, deque()).append(_Trigger(node_input, branch))

    def _start_ready(self) -> None:
        for name in list(self._triggers):
            if name in self._running or name in self.waiting:
                continue
            if self.max_concurrency is not None and len(self._running) >= self.max_concurrency:
                return
            queue = self._triggers[name]
            trigger = queue.popleft()
            if not queue:
                del self._triggers[name]
            self._running[name] = asyncio.create_task(self._run_node(name, trigger))

    async def _run_node(
        self,
        name: str,
        trigger: _Trigger,
        run_id: int | None = None,
        resuming: bool = False,
        resume_inputs: dict[str, Any] | None = None,
        dynamic: dict[str, DynamicRecord] | None = None,
    ) -> None:
        node = self.graph.nodes[name]
        if run_id is None:
            run_id = self._runs[name] = self._runs.get(name, 0) + 1
        self._started[name] = (run_id, trigger)
        if self._replayed(name, run_id, trigger):
            return
        path = f"{self.path}/{name}@{run_id}"
        terminal = name in self.graph.terminal_names
        if self.recovery is not None and not dynamic:  # its dynamic nodes that finished
            dynamic = self.recovery.dynamic_records(path)
        run = NodeRun(
            node=node,
            ic=self.ic.model_copy(update={"branch": trigger.branch}),
            author=self.name,
            path=path,
            run_id=str(run_id),
            node_input=trigger.node_input,
            emit=self._emit,
            output_for=[path, self.path] if terminal else None,
            resuming=resuming,
            resume_inputs=resume_inputs,
            dynamic=DynamicRuns(self._emit, dynamic) if dynamic else None,
        )
        try:
            result = await run.run()
        except BaseException as error:
            if isinstance(error, DynamicNodeFailError):  # the dynamic node's own error
                error = error.error
            if not self._closing:  # a node's own cancellation or BaseException: report it
                self._inbox.put_nowait(("failed", name, error))
            if not isinstance(error, Exception):
                raise
            return
        self._inbox.put_nowait(("done", name, result))

    def _replayed(self, name: str, run_id: int, trigger: _Trigger) -> bool:
        """True when run ``run_id`` of ``name`` had finished before an interruption:
        it ends with its recorded result, nothing run or written again."""
        if self.recovery is None:
            return False
        result = self.recovery.finished(name, run_id)
        if result is None:
            return False
        result.branch = trigger.branch
        self._inbox.put_nowait(("done", name, result))
        return True

    async def _emit(self, event: Event) -> None:
        consumed: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._inbox.put_nowait(("event", "", (event, consumed)))
        await consumed

    def _complete(self, name: str, result: NodeResult) -> None:
        run_id, trigger = self._started.pop(name)
        carried = self._carried.pop(name, None)
        if result.waiting:  # its successors wait for the client's answer
            self.waiting[name] = WaitingNode(
                run_id=run_id,
                branch=trigger.branch,
                node_input=trigger.node_input,
                interrupts=result.interrupts | (carried.interrupts if carried else set()),
                requests={**(carried.requests if carried else {}), **result.requests},
                answers=dict(carried.answers) if carried else {},
                dynamic=result.dynamic,
            )
            return
        if result.has_output:
            self.outputs[name] = result.output
            if name in self.graph.terminal_names:
                self.terminal_outputs[name] = result.output
        else:
            self.outputs.pop(name, None)
        self.branches[name] = result.branch
        output = result.output if result.has_output else None
        self._trigger_successors(name, output, result.route, result.branch)

    def _trigger_successors(self, name: str, output: Any, route: Any, branch: str | None) -> None:
        targets = self.graph.successors(name, route)
        for target in targets:
            if self.graph.nodes[target]._requires_all_predecessors:
                self._arrive(target, name)
            else:
                self._add_trigger(target, output, self._branch_for(branch, target, targets))

    def _arrive(self, target: str, source: str) -> None:
        arrived = self._arrivals.setdefault(target, set())
        arrived.add(source)
        predecessors = self.graph.predecessors(target)
        if not predecessors <= arrived:
            return
        del self._arrivals[target]
        names = sorted(predecessors)
        branch = _common_branch([self.branches.get(p) for p in names])
        if branch == self._fan_out_base():  # every branch met again: back to the workflow's
            branch = self.ic.branch
        self._add_trigger(target, {p: self.outputs.get(p) for p in names}, branch)

    def _branch_for(self, current: str | None, target: str, targets: list[str]) -> str | None:
        """A fan-out (several targets) gives each target its own sub-branch."""
        if len(targets) < 2:
            return current if current is not None else self.ic.branch
        if current is not None and current != self.ic.branch:
            return f"{current}.{target}"
        return f"{self._fan_out_base()}.{target}"

    def _fan_out_base(self) -> str:
        return f"{self.ic.branch}.{self.name}" if self.ic.branch else self.name

    # -- pausing and resuming ------------------------------------------------------------
    def _pause_state(self) -> PauseState:
        """What the resume of this run needs (outputs: only those still read later)."""
        kept = set(self.graph.terminal_names) | {
            source for target in self._joins() for source in self.graph.predecessors(target)
        }
        return PauseState(
            waiting=dict(self.waiting),
            outputs={n: v for n, v in self.outputs.items() if n in kept and n != START.name},
            branches={n: b for n, b in self.branches.items() if n != START.name},
            arrivals={t: set(s) for t, s in self._arrivals.items()},
            queued={
                n: [(t.node_input, t.branch) for t in queue] for n, queue in self._triggers.items()
            },
            runs=dict(self._runs),
        )

    def _joins(self) -> list[str]:
        return [n for n, node in self.graph.nodes.items() if node._requires_all_predecessors]

    def _restore(
        self,
        state: PauseState,
        resume_node: Callable[[str, WaitingNode], bool],
        answers: dict[str, Any],
    ) -> None:
        """Takes up a paused run: its state, and the waiting nodes that go on."""
        self.outputs.update(state.outputs)
        self.terminal_outputs = {
            n: v for n, v in state.outputs.items() if n in self.graph.terminal_names
        }
        self.branches.update(state.branches)
        self._arrivals = {t: set(s) for t, s in state.arrivals.items()}
        self._runs = dict(state.runs)
        for name, items in state.queued.items():
            for value, branch in items:
                self._add_trigger(name, value, branch)
        for name, waiting in state.waiting.items():
            if name not in self.graph.nodes:
                raise WorkflowConfigurationError(
                    f"Workflow {self.name!r} cannot resume: node {name!r}, which waits for "
                    "the client, is no longer in its graph."
                )
            if resume_node(name, waiting):
                self._go_on(name, waiting.with_answers(answers))
            else:
                self.waiting[name] = waiting

    def _go_on(self, name: str, waiting: WaitingNode) -> None:
        """Resumes waiting node ``name``: an agent node (or a node rerun on resume) runs
        again; a node that asked for input outputs the answer once all its requests
        have one."""
        node = self.graph.nodes[name]
        pending = waiting.interrupts
        rerun = (
            isinstance(node, AgentNode)
            or node.rerun_on_resume
            or any(r.waiting for r in waiting.dynamic.values())  # to reach its dynamic nodes
        )
        if not rerun and any(i not in waiting.answers for i in waiting.requests):
            self.waiting[name] = waiting  # asked for more than was answered
            return
        trigger = _Trigger(waiting.node_input, waiting.branch)
        if not rerun:
            values = list(waiting.answers.values())
            output = values[0] if len(values) == 1 else dict(waiting.answers)
            self._running[name] = asyncio.create_task(
                self._answer(name, trigger, waiting.run_id, output)
            )
            return
        self._carried[name] = WaitingNode(
            run_id=waiting.run_id,
            branch=waiting.branch,
            node_input=waiting.node_input,
            interrupts=set(pending),
            requests={i: v for i, v in waiting.requests.items() if i not in waiting.answers},
            answers=dict(waiting.answers),
        )
        self._running[name] = asyncio.create_task(
            self._run_node(
                name,
                trigger,
                waiting.run_id,
                resuming=True,
                resume_inputs=waiting.answers,
                dynamic=waiting.dynamic,
            )
        )

    async def _answer(self, name: str, trigger: _Trigger, run_id: int, output: Any) -> None:
        """Ends node ``name``'s paused run with the client's answer as its output."""
        self._started[name] = (run_id, trigger)
        if self._replayed(name, run_id, trigger):
            return
        path = f"{self.path}/{name}@{run_id}"
        terminal = name in self.graph.terminal_names
        event = node_event(
            self.ic.model_copy(update={"branch": trigger.branch}),
            author=self.name,
            path=path,
            actions=EventActions(),
            output=output,
            with_output=True,
            output_for=[path, self.path] if terminal else None,
        )
        await self._emit(event)
        result = NodeResult(output=output, has_output=True, branch=trigger.branch)
        self._inbox.put_nowait(("done", name, result))

    async def _cancel_all(self) -> None:
        self._closing = True
        tasks = list(self._running.values())
        self._running.clear()
        for task in tasks:
            task.cancel()
        if tasks:
            with contextlib.suppress(BaseException):
                await asyncio.gather(*tasks, return_exceptions=True)
        while not self._inbox.empty():  # release producers still waiting (none after cancel)
            kind, _, payload = self._inbox.get_nowait()
            if kind == "event" and not payload[1].done():
                payload[1].cancel()
