"""JoinNode: waits for every predecessor, then passes their outputs on together."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import TYPE_CHECKING, Any

from pyadk.workflow._base_node import BaseNode

if TYPE_CHECKING:
    from pyadk.workflow._context import Context


class JoinNode(BaseNode):
    """Runs once all its predecessors finished since it last ran.

    Its input and output is a dict ``{predecessor name: its output}``. It runs in
    the branch its predecessors share. A predecessor that is never reached (a
    route not taken) keeps the join waiting: the workflow then ends without it.
    """

    @property
    def _requires_all_predecessors(self) -> bool:
        return True

    async def _run_impl(self, *, ctx: Context, node_input: Any) -> AsyncGenerator[Any, None]:
        yield node_input
