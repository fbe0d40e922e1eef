"""``ctx.run_node`` calls a node's body started in a task it never awaited.

Such a call runs unsupervised: its failure would be lost and the node would end as if
all went well. When the body ends, the node waits for those tasks; the first failure of
a dynamic node that no one read fails the node with that node's error (google-adk
likewise fails the workflow when a detached dynamic node failed).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from pyadk.workflow._errors import DynamicNodeFailError

if TYPE_CHECKING:
    from pyadk.workflow._context import Context


async def surface_detached(ctx: Context) -> None:
    """Waits for the tasks that called ``ctx.run_node`` outside the node's body and
    raises the first dynamic node failure nobody read (as a DynamicNodeFailError)."""
    tasks = ctx._side_tasks
    if not tasks:
        return
    # Done before the body ended: unread only if no one took its result.
    unread = [t for t in tasks if t.done() and getattr(t, "_log_traceback", False)]
    pending = [t for t in tasks if not t.done()]  # never awaited by the body
    if pending:
        await asyncio.wait(pending)
    for task in [*unread, *pending]:
        if task.cancelled():
            continue
        error = task.exception()
        if isinstance(error, DynamicNodeFailError):
            raise error


def cancel_detached(ctx: Context) -> list[asyncio.Task[object]]:
    """Cancels the side tasks still running (the node failed): returns them."""
    pending = [t for t in ctx._side_tasks if not t.done()]
    for task in pending:
        task.cancel()
    return pending
