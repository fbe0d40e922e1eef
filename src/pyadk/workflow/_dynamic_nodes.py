"""Dynamic nodes: a running node runs another node with ``await ctx.run_node(...)``."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pyadk.events.event_actions import EventActions
from pyadk.workflow._base_node import START, BaseNode
from pyadk.workflow._dynamic_state import DynamicRecord
from pyadk.workflow._errors import (
    DynamicNodeFailError,
    NodeInterruptedError,
    WorkflowConfigurationError,
)
from pyadk.workflow._node_events import node_event

if TYPE_CHECKING:
    from pyadk.agents.invocation_context import InvocationContext
    from pyadk.workflow._context import Context
    from pyadk.workflow._node_run import Emit, NodeResult, NodeRun


@dataclass
class DynamicScope:
    """What a node's ``ctx`` needs to run dynamic nodes: the runs of its graph node,
    the author of their events, and where the node's own output goes."""

    runs: DynamicRuns
    author: str
    output_for: list[str] | None


class DynamicRuns:
    """The dynamic nodes run under one node of a graph (its dynamic nodes' own
    dynamic nodes included), by path ``<caller path>/<name>@<run id>``.

    Run ids count the runs of each name under each caller (1, 2, ...), so a caller
    that runs again on resume finds its earlier runs at the same paths: the
    ``records`` of those that finished give their output without running them again;
    those that waited go on with the client's answers.
    """

    def __init__(self, emit: Emit, records: dict[str, DynamicRecord] | None = None) -> None:
        self.emit = emit
        self.records: dict[str, DynamicRecord] = dict(records or {})
        self._counters: dict[str, dict[str, int]] = {}
        self._running: dict[str, asyncio.Task[NodeResult]] = {}

    # -- run ids ---------------------------------------------------------------------------
    def _next_run_id(self, caller: str, name: str) -> str:
        counters = self._counters.setdefault(caller, {})
        counters[name] = counters.get(name, 0) + 1
        return str(counters[name])

    def snapshot(self, caller: str) -> dict[str, dict[str, int]]:
        """The run counters under ``caller`` (taken when an attempt of it starts)."""
        return {k: dict(v) for k, v in self._counters.items() if _under(k, caller)}

    def rewind(self, caller: str, snapshot: dict[str, dict[str, int]]) -> None:
        """Puts the counters under ``caller`` back to ``snapshot``: a retry after a
        dynamic node failed finds the runs its failed attempt finished, and reuses them."""
        for key in [k for k in self._counters if _under(k, caller)]:
            del self._counters[key]
        self._counters.update({k: dict(v) for k, v in snapshot.items()})

    # -- running ---------------------------------------------------------------------------
    async def run(
        self,
        ctx: Context,
        scope: DynamicScope,
        node_like: Any,
        node_input: Any,
        *,
        use_as_output: bool,
        run_id: str | None,
        use_sub_branch: bool,
        override_branch: str | None,
    ) -> Any:
        """Runs ``node_like`` under ``ctx``'s node and returns its output (see
        :meth:`Context.run_node`)."""
        from pyadk.workflow._node_run import NodeRun

        built = _build(node_like)
        if run_id is None:
            run_id = self._next_run_id(ctx.node_path, built.name)
        else:
            run_id = _check_run_id(run_id, built.name)
        if use_as_output:
            if ctx._output_delegated:
                raise ValueError(f"Node {ctx.node_path} already has a use_as_output delegate.")
            ctx._output_delegated = True
        path = f"{ctx.node_path}/{built.name}@{run_id}"
        output_for = [path, *(scope.output_for or [ctx.node_path])] if use_as_output else None
        branch = _branch(ctx, built, run_id, use_sub_branch, override_branch)
        ic = ctx._invocation_context.model_copy(update={"branch": branch})
        running = self._running.get(path)
        if running is not None:  # the same explicit run id, still running: share its run
            result = await asyncio.shield(running)
        else:
            record = self.records.get(path)
            if record is not None and not record.waiting:  # finished before: not run again
                return self._deliver(ctx, record.output, use_as_output)
            if record is not None and not _goes_on(record):
                ctx._interrupts.update(record.interrupts)
                raise NodeInterruptedError()
            if record is not None and not record.rerun:  # the answers are its output
                output = await self._answer(ic, scope, path, record, output_for)
                return self._deliver(ctx, output, use_as_output)
            child = NodeRun(
                node=built,
                ic=ic,
                author=scope.author,
                path=path,
                run_id=run_id,
                node_input=node_input,
                emit=self.emit,
                output_for=output_for,
                resuming=record is not None,
                resume_inputs=record.answers if record is not None else None,
                dynamic=self,
                dynamic_child=True,
            )
            result = await self._start(child, record)
        if result.waiting:
            ctx._interrupts.update(result.interrupts)
            raise NodeInterruptedError()
        return self._deliver(ctx, result.output if result.has_output else None, use_as_output)

    async def _start(self, child: NodeRun, record: DynamicRecord | None) -> NodeResult:
        """Runs ``child`` (going on from its waiting ``record``, if any) in a task of its
        own; its failure as a DynamicNodeFailError."""
        path, name = child.path, child.node.name
        task = asyncio.create_task(self._run_child(child, record))
        self._running[path] = task
        try:
            return await task
        except DynamicNodeFailError as error:
            raise DynamicNodeFailError(
                message=f"Dynamic node {name} failed",
                error=error.error,
                error_node_path=error.error_node_path,
            ) from error.error
        except Exception as error:
            raise DynamicNodeFailError(
                message=f"Dynamic node {name} failed", error=error, error_node_path=path
            ) from error
        finally:
            if self._running.get(path) is task:
                del self._running[path]

    async def _run_child(self, child: NodeRun, record: DynamicRecord | None) -> NodeResult:
        """Runs ``child`` and records how it ended (before its caller reads it).

        A run going on from a waiting ``record`` that waits again keeps what that record
        still waited for and the answers it got (as a graph node does), so the next
        answer adds to them."""
        try:
            result = await child.run()
        except BaseException:
            self.records.pop(child.path, None)
            raise
        if result.waiting:
            carried = record if record is not None and record.waiting else DynamicRecord()
            self.records[child.path] = DynamicRecord(
                waiting=True,
                rerun=_reruns(child.node, result),
                interrupts=result.interrupts | carried.interrupts,
                requests={
                    **{i: s for i, s in carried.requests.items() if i not in carried.answers},
                    **result.requests,
                },
                answers=dict(carried.answers),
            )
        else:
            self.records[child.path] = DynamicRecord(
                output=result.output, has_output=result.has_output
            )
        return result

    def _deliver(self, ctx: Context, output: Any, use_as_output: bool) -> Any:
        if use_as_output and output is not None:
            ctx._delegated_output = (output,)
        return output

    async def _answer(
        self,
        ic: InvocationContext,
        scope: DynamicScope,
        path: str,
        record: DynamicRecord,
        output_for: list[str] | None,
    ) -> Any:
        """Ends a dynamic node that asked for input with the client's answers."""
        answers = list(record.answers.values())
        output = answers[0] if len(answers) == 1 else dict(record.answers)
        event = node_event(
            ic,
            author=scope.author,
            path=path,
            actions=EventActions(),
            output=output,
            with_output=True,
            output_for=output_for,
        )
        await self.emit(event)
        self.records[path] = DynamicRecord(output=output, has_output=True)
        return output

    async def settle(self, ctx: Context, *, cancel: bool) -> None:
        """Waits for (or, with ``cancel``, cancels) the dynamic nodes still running
        under ``ctx``'s node; those that ended waiting make the node wait too."""
        below = ctx.node_path + "/"
        running = {p: t for p, t in self._running.items() if p.startswith(below)}
        pending = [t for t in running.values() if not t.done()]
        if cancel:
            for task in pending:
                task.cancel()
        if pending:
            await asyncio.wait(pending)
        if cancel:
            return
        for path in running:
            record = self.records.get(path)
            if record is not None and record.waiting and path.rsplit("/", 1)[0] == ctx.node_path:
                ctx._interrupts.update(record.interrupts)

    def records_under(self, path: str) -> dict[str, DynamicRecord]:
        """The records of the dynamic nodes run under ``path``."""
        below = path + "/"
        return {p: r for p, r in self.records.items() if p.startswith(below)}


def _goes_on(record: DynamicRecord) -> bool:
    """True when a waiting run goes on in this invocation: the client answered one of
    its calls (and, for a run whose answers are its output, every request)."""
    if not record.answered:
        return False
    return record.rerun or all(i in record.answers for i in record.requests)


def _branch(
    ctx: Context, built: BaseNode, run_id: str, use_sub_branch: bool, override: str | None
) -> str | None:
    """The branch a dynamic node runs in: its caller's (or ``override``), or a
    sub-branch ``<name>@<run id>`` of it (always for an agent or workflow)."""
    from pyadk.workflow._agent_node import AgentNode

    base = ctx._invocation_context.branch if override is None else (override or None)
    if use_sub_branch or (override is None and isinstance(built, AgentNode)):
        label = f"{built.name}@{run_id}"
        return f"{base}.{label}" if base else label
    return base


def _under(path: str, caller: str) -> bool:
    return path == caller or path.startswith(caller + "/")


def _build(node_like: Any) -> BaseNode:
    from pyadk.workflow._graph_parser import build_node

    built = build_node(node_like)
    if built is START:
        raise WorkflowConfigurationError("ctx.run_node cannot run START.")
    return built


def _check_run_id(run_id: Any, name: str) -> str:
    text = str(run_id)
    if text.isdigit():
        raise ValueError(
            f'Explicit run_id "{text}" for node "{name}" must contain non-numeric '
            "characters to prevent collision with auto-generated IDs."
        )
    if not text or "/" in text or "@" in text:
        raise ValueError(
            f"Explicit run_id {text!r} for node {name!r} must be non-empty, without '/' or '@'."
        )
    return text


def _reruns(node: BaseNode, result: NodeResult) -> bool:
    """True when a waiting node runs again once answered (else its answers are its
    output)."""
    from pyadk.workflow._agent_node import AgentNode

    return isinstance(node, AgentNode) or node.rerun_on_resume or result.via_dynamic
