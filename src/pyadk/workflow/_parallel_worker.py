"""ParallelWorker: runs a node once per item of its list input, concurrently."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncGenerator
from typing import TYPE_CHECKING, Any

from pydantic import Field

from pyadk import types
from pyadk.workflow._base_node import BaseNode, is_start
from pyadk.workflow._coercion import content_text
from pyadk.workflow._errors import NodeInterruptedError, WorkflowConfigurationError

if TYPE_CHECKING:
    from pyadk.workflow._context import Context


def _items(node_input: Any) -> list[Any]:
    """The list to work on: a list as is, a message's JSON list, else one item."""
    if isinstance(node_input, types.Content):
        text = content_text(node_input)
        try:
            node_input = json.loads(text)
        except json.JSONDecodeError:
            node_input = text
    return node_input if isinstance(node_input, list) else [node_input]


class ParallelWorker(BaseNode):
    """Runs ``node`` once per item of the input list, at most
    ``max_parallel_workers`` at a time (None: all at once), and outputs the list of
    their outputs in input order (None for an item without output).

    Each item runs as a dynamic node ``<path>/<node>@<n>`` (``n``: its position,
    from 1) in a branch of its own, with the inner node's own ``retry_config`` and
    ``timeout``; the first item that fails cancels the others and fails this node.

    An item that waits for the client (``RequestInput``, an approval, a credential)
    makes this node wait: no further item starts, the items already running finish,
    then the workflow pauses. When the client answers, this node runs again: the
    items that finished give their recorded output without running again, the
    answered ones go on, those not started yet start; items still unanswered keep
    it waiting. Made by ``node(..., parallel_worker=True)`` or a :class:`Node`
    subclass with ``parallel_worker=True``.
    """

    node: BaseNode
    name: str = ""
    max_parallel_workers: int | None = Field(default=None, ge=1)
    rerun_on_resume: bool = True

    def __init__(self, **data: Any) -> None:
        inner = data.get("node")
        if is_start(inner):
            raise WorkflowConfigurationError("ParallelWorker cannot wrap START.")
        if isinstance(inner, BaseNode):
            data.setdefault("name", inner.name)
        super().__init__(**data)

    async def _run_impl(self, *, ctx: Context, node_input: Any) -> AsyncGenerator[Any, None]:
        items = _items(node_input)
        results: list[Any] = [None] * len(items)
        limit = self.max_parallel_workers or len(items) or 1
        pending: dict[asyncio.Task[Any], int] = {}
        started = 0
        interrupted = False
        try:
            while (not interrupted and started < len(items)) or pending:
                # Once an item waits for the client no other item starts; the
                # running ones finish first.
                while not interrupted and started < len(items) and len(pending) < limit:
                    pending[asyncio.create_task(self._run_item(ctx, items[started]))] = started
                    started += 1
                done, _ = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
                failure: BaseException | None = None
                for task in sorted(done, key=pending.__getitem__):  # input order
                    index = pending.pop(task)
                    error = task.exception()
                    if isinstance(error, NodeInterruptedError):
                        interrupted = True
                    elif error is not None:
                        failure = failure or error
                    else:
                        results[index] = task.result()
                if failure is not None:
                    raise failure
        finally:
            for task in pending:
                task.cancel()
            if pending:
                await asyncio.wait(pending)
        if interrupted:  # the waiting items' calls are in ctx: this node waits
            raise NodeInterruptedError()
        yield results

    async def _run_item(self, ctx: Context, item: Any) -> Any:
        """Runs one item as a dynamic node of this node. Run ids are handed out as the
        items' tasks start, i.e. in input order: the n-th item is ``<node>@<n>``, in
        every run of this node, so a rerun finds each item's record again."""
        scope = ctx._dynamic
        if scope is None:
            raise WorkflowConfigurationError(
                f"Parallel worker {self.name!r} can only run in a Workflow."
            )
        ic = ctx._invocation_context
        return await scope.runs.run(
            ctx,
            scope,
            self.node,
            item,
            use_as_output=False,
            run_id=None,
            use_sub_branch=True,
            override_branch=ic.branch or ic.agent.name,
        )
