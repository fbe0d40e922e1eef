"""Conditions on the session state that workflow agents check at run time."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from pyadk.agents.readonly_context import ReadonlyContext

if TYPE_CHECKING:
    from pyadk.agents.invocation_context import InvocationContext

Condition = Callable[[ReadonlyContext], bool | Awaitable[bool]]
"""A predicate over a read-only view of the invocation (``ctx.state``,
``ctx.outcome_of(name)``, ...), sync or async."""


async def call_with_view(function: Callable[[ReadonlyContext], Any], ctx: InvocationContext) -> Any:
    """Calls ``function`` with a read-only view of ``ctx``; awaits an awaitable result."""
    result = function(ReadonlyContext(ctx))
    if inspect.isawaitable(result):
        result = await result
    return result


async def holds(condition: Condition, ctx: InvocationContext) -> bool:
    """Whether ``condition`` is true for ``ctx`` now."""
    return bool(await call_with_view(condition, ctx))
