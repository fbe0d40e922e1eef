"""Running one node once it is triggered: events, output, retries and timeout."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pyadk.errors import InvocationStop
from pyadk.events.event import Event
from pyadk.events.event_actions import EventActions
from pyadk.workflow._base_node import BaseNode
from pyadk.workflow._context import Context
from pyadk.workflow._detached_runs import cancel_detached, surface_detached
from pyadk.workflow._dynamic_nodes import DynamicRuns, DynamicScope
from pyadk.workflow._dynamic_state import DynamicRecord
from pyadk.workflow._errors import (
    DynamicNodeFailError,
    NodeInterruptedError,
    NodeTimeoutError,
    WorkflowDataError,
)
from pyadk.workflow._node_events import error_event, node_event
from pyadk.workflow._request_input import RequestInput, json_schema, request_event

if TYPE_CHECKING:
    from pyadk.agents.invocation_context import InvocationContext

Emit = Callable[[Event], Awaitable[None]]
"""Hands an event to the workflow; returns once the session has it."""


class NodeWaiting:
    """Yielded by a node whose run ends waiting for the client (an approval, a
    credential, a long-running call): its successors wait until it is resumed."""


class SetOutput:
    """Yielded by a node to set its output without writing an event (the node's
    own events already show it, e.g. an agent's answer)."""

    def __init__(self, value: Any) -> None:
        self.value = value


@dataclass
class NodeResult:
    """How a node run ended."""

    output: Any = None
    has_output: bool = False
    route: Any = None
    branch: str | None = None
    waiting: bool = False
    """The run ended waiting for the client; ``interrupts`` are the calls it waits on."""
    interrupts: set[str] = field(default_factory=set)
    requests: dict[str, Any] = field(default_factory=dict)
    """Its RequestInput ids, each with its answer's JSON schema."""
    via_dynamic: bool = False
    """It waits because a dynamic node it ran (``ctx.run_node``) waits."""
    dynamic: dict[str, DynamicRecord] = field(default_factory=dict)
    """When waiting: the dynamic nodes it ran, by path (finished or waiting)."""


@dataclass
class NodeRun:
    """One triggered run of ``node`` (its attempts included)."""

    node: BaseNode
    ic: InvocationContext
    author: str
    path: str
    run_id: str
    node_input: Any
    emit: Emit
    output_for: list[str] | None = None
    """Set for a terminal node: its output is the workflow's output too."""
    resuming: bool = False
    """The run goes on from a pause (the client answered what it waited for)."""
    resume_inputs: dict[str, Any] | None = None
    """The answers to the node's ``RequestInput`` s (``ctx.resume_inputs``)."""
    dynamic: DynamicRuns | None = None
    """The dynamic nodes of the graph node this run belongs to (made when None)."""
    dynamic_child: bool = False
    """The run of a dynamic node (``ctx.run_node``)."""

    async def run(self) -> NodeResult:
        """Runs the node, retrying per its ``retry_config``; raises its last error.

        A stop of the whole turn (``max_llm_calls``, a budget) is never retried. A
        dynamic node's failure (:class:`DynamicNodeFailError`) is retried on its
        ``error``; it was recorded by that node, and the retry reuses the dynamic
        nodes the failed attempt finished."""
        if self.dynamic is None:
            self.dynamic = DynamicRuns(self.emit)
        attempt = 1
        while True:
            counters = self.dynamic.snapshot(self.path)
            try:
                return await self._attempt(self.dynamic)
            except Exception as error:
                cause = error.error if isinstance(error, DynamicNodeFailError) else error
                config = self.node.retry_config
                retrying = (
                    config is not None
                    and not isinstance(cause, InvocationStop)  # limits of the turn stop it
                    and config.should_retry(cause, attempt)
                )
                if cause is error or not self.dynamic_child:
                    # A dynamic node's last failure has no error_code: its caller may
                    # catch it. Uncaught, it ends the graph node that ran it: recorded
                    # there, naming the node that raised it.
                    await self.emit(
                        error_event(
                            self.ic,
                            author=self.author,
                            path=self.path,
                            error=cause,
                            attempt=attempt,
                            retrying=retrying,
                            final=not retrying and not self.dynamic_child,
                            origin=None if cause is error else _origin(error),
                        )
                    )
                if config is None or not retrying:
                    raise
                if cause is not error:
                    self.dynamic.rewind(self.path, counters)
                await asyncio.sleep(config.delay(attempt))
                attempt += 1

    async def _attempt(self, runs: DynamicRuns) -> NodeResult:
        node = self.node
        ctx = Context(
            self.ic,
            node_name=node.name,
            node_path=self.path,
            run_id=self.run_id,
            resuming=self.resuming,
            resume_inputs=self.resume_inputs,
        )
        ctx._dynamic = DynamicScope(runs, self.author, self.output_for)
        ctx._task = asyncio.current_task()
        result = NodeResult(branch=self.ic.branch)
        try:
            if node.timeout is None:
                await self._drive(ctx, result)
            else:
                try:
                    async with asyncio.timeout(node.timeout) as scope:
                        await self._drive(ctx, result)
                except TimeoutError as error:
                    if scope.expired():
                        raise NodeTimeoutError(node_name=node.name, timeout=node.timeout) from error
                    raise
        except BaseException:
            detached = cancel_detached(ctx)
            await runs.settle(ctx, cancel=True)  # no dynamic node outlives a failed run
            if detached:
                await asyncio.wait(detached)
            raise
        try:
            await surface_detached(ctx)
        finally:
            await runs.settle(ctx, cancel=False)
        if ctx._interrupts:  # a dynamic node waits for the client: so does this node
            result.waiting = result.via_dynamic = True
            result.interrupts.update(ctx._interrupts)
        if result.waiting:  # kept for its resume: the dynamic nodes it ran
            result.dynamic = runs.records_under(self.path)
        elif ctx._delegated_output is not None and not result.has_output:
            result.output, result.has_output = ctx._delegated_output[0], True
        result.route = ctx.route
        return result

    async def _drive(self, ctx: Context, result: NodeResult) -> None:
        try:
            await self._items(ctx, result)
        except NodeInterruptedError:  # ctx.run_node: a dynamic node waits for the client
            pass
        except BaseExceptionGroup as group:  # e.g. a TaskGroup of run_node calls
            interrupted, rest = group.split(NodeInterruptedError)
            if interrupted is None:
                raise
            if rest is not None:
                raise rest from None
        if not ctx.actions.is_empty() or (ctx.route is not None and not ctx._route_sent):
            await self._write(ctx)

    async def _items(self, ctx: Context, result: NodeResult) -> None:
        items = self.node._run_impl(ctx=ctx, node_input=self.node_input)
        try:
            async for item in items:
                if item is None:
                    continue
                if isinstance(item, Event):
                    if item.long_running_tool_ids:
                        result.interrupts.update(item.long_running_tool_ids)
                    await self._pass_on(ctx, item)
                    continue
                if isinstance(item, NodeWaiting):
                    result.waiting = True
                    continue
                if isinstance(item, RequestInput):
                    await self._ask(ctx, item, result)
                    continue
                if result.has_output and not ctx._output_delegated:
                    raise WorkflowDataError(
                        f"Node {self.node.name!r} produced a second output: a node produces "
                        "at most one output."
                    )
                if isinstance(item, SetOutput):
                    result.output, result.has_output = item.value, True
                elif ctx._output_delegated:  # a dynamic node wrote it (use_as_output)
                    result.output, result.has_output = item, True
                else:
                    result.output, result.has_output = item, True
                    await self._write(ctx, output=item, with_output=True)
        finally:
            await items.aclose()

    async def _ask(self, ctx: Context, request: RequestInput, result: NodeResult) -> None:
        """Writes the request for the client's input; the node then waits."""
        event = request_event(self.ic, author=self.author, path=self.path, request=request)
        await self._pass_on(ctx, event)
        result.waiting = True
        result.interrupts.add(request.interrupt_id)
        result.requests[request.interrupt_id] = json_schema(request.response_schema)

    async def _pass_on(self, ctx: Context, event: Event) -> None:
        """A node's own event: gets the node's pending state changes, the invocation id
        and the branch."""
        if not event.invocation_id:
            event.invocation_id = self.ic.invocation_id
        pending = ctx.actions
        if not pending.is_empty():
            event.actions.state_delta.update(pending.state_delta)
            event.actions.artifact_delta.update(pending.artifact_delta)
            _reset(ctx)
        if event.branch is None:
            event.branch = self.ic.branch
        await self.emit(event)

    async def _write(self, ctx: Context, *, output: Any = None, with_output: bool = False) -> None:
        route = None
        if ctx.route is not None and not ctx._route_sent:
            route = ctx.route
            ctx._route_sent = True
        event = node_event(
            self.ic,
            author=self.author,
            path=self.path,
            actions=_take_actions(ctx),
            output=output,
            with_output=with_output,
            route=route,
            output_for=self.output_for if with_output else None,
        )
        await self.emit(event)


def _origin(error: Exception) -> str | None:
    return error.error_node_path if isinstance(error, DynamicNodeFailError) else None


def _take_actions(ctx: Context) -> EventActions:
    actions = ctx.actions
    taken = EventActions(
        state_delta=dict(actions.state_delta), artifact_delta=dict(actions.artifact_delta)
    )
    _reset(ctx)
    return taken


def _reset(ctx: Context) -> None:
    ctx.actions.state_delta.clear()
    ctx.actions.artifact_delta.clear()
