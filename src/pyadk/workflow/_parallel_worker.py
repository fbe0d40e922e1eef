"""ParallelWorker: runs a node once per item of its list input, concurrently."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncGenerator
from typing import TYPE_CHECKING, Any

from pydantic import Field

from pyadk import types
from pyadk.events.event import Event
from pyadk.workflow._base_node import BaseNode
from pyadk.workflow._coercion import content_text
from pyadk.workflow._errors import WorkflowConfigurationError
from pyadk.workflow._node_run import NodeResult, NodeRun

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

    Each item runs as ``<path>/<node>@<n>`` in a branch of its own, with the
    inner node's own ``retry_config`` and ``timeout``; the first item that fails
    cancels the others and fails this node. Made by ``node(...,
    parallel_worker=True)`` or a :class:`Node` subclass with ``parallel_worker=True``.
    """

    node: BaseNode
    name: str = ""
    max_parallel_workers: int | None = Field(default=None, ge=1)

    def __init__(self, **data: Any) -> None:
        inner = data.get("node")
        if isinstance(inner, BaseNode):
            data.setdefault("name", inner.name)
        super().__init__(**data)

    async def _run_impl(self, *, ctx: Context, node_input: Any) -> AsyncGenerator[Any, None]:
        items = _items(node_input)
        inbox: asyncio.Queue[tuple[Event, asyncio.Future[None]]] = asyncio.Queue()
        limit = asyncio.Semaphore(self.max_parallel_workers or len(items) or 1)
        ic = ctx._invocation_context
        prefix = ic.branch or ic.agent.name

        async def emit(event: Event) -> None:
            consumed: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            inbox.put_nowait((event, consumed))
            await consumed

        async def work(index: int, item: Any) -> NodeResult:
            async with limit:
                label = f"{self.node.name}@{index + 1}"
                return await NodeRun(
                    node=self.node,
                    ic=ic.model_copy(update={"branch": f"{prefix}.{label}"}),
                    author=ic.agent.name,
                    path=f"{ctx.node_path}/{label}",
                    run_id=str(index + 1),
                    node_input=item,
                    emit=emit,
                ).run()

        tasks = [asyncio.create_task(work(i, item)) for i, item in enumerate(items)]
        gathered = asyncio.ensure_future(asyncio.gather(*tasks))
        try:
            while not gathered.done() or not inbox.empty():
                getter = asyncio.ensure_future(inbox.get())
                waiting: set[asyncio.Future[Any]] = {getter, gathered}
                await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
                if not getter.done():
                    getter.cancel()
                    continue
                event, consumed = getter.result()
                try:
                    yield event
                finally:
                    if not consumed.done():
                        consumed.set_result(None)
            results: list[NodeResult] = gathered.result()
        finally:
            for task in tasks:
                task.cancel()
            with contextlib.suppress(BaseException):
                await gathered
        if any(r.waiting for r in results):
            raise WorkflowConfigurationError(
                f"Parallel worker {self.name!r}: an item stopped to wait for the client; "
                "pausing inside a parallel worker is not supported by pyadk."
            )
        yield [r.output if r.has_output else None for r in results]
