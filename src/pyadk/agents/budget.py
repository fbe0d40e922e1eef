"""Budget: hard limits on one invocation (one user turn), and what ends it cleanly.

A run that reaches a limit stops before the model call or the tool calls that would go
past it; the turn then ends with one terminal event (``error_code`` ``BUDGET_EXCEEDED``,
the limit and the amount used in ``error_message``) instead of an exception. Failure
policies (``on_failure="continue"``, a parallel agent's ``collect``) never absorb it.
"""

import json
import time
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field

from pyadk.errors import InvocationStop
from pyadk.utils.attribute_lookup import PlainAttributeLookup
from pyadk.utils.camel_case import to_camel

if TYPE_CHECKING:
    from pyadk import types
    from pyadk.agents.invocation_context import InvocationContext

BUDGET_EXCEEDED = "BUDGET_EXCEEDED"
"""The ``error_code`` of the event that ends a turn over budget."""


class Budget(PlainAttributeLookup, BaseModel):
    """Limits on one invocation; None means no limit on that measure."""

    model_config = ConfigDict(
        extra="forbid", defer_build=True, alias_generator=to_camel, populate_by_name=True
    )

    llm_calls: int | None = Field(default=None, ge=1)
    """Model calls."""
    tool_calls: int | None = Field(default=None, ge=1)
    """Tool calls (every call of every response)."""
    tokens: int | None = Field(default=None, ge=1)
    """Tokens the model reported (``usage_metadata.total_token_count``), checked before
    each model call: the call that crosses the line completes."""
    wall_time: float | None = Field(default=None, gt=0)
    """Seconds since the turn started, checked before each model call and tool batch."""
    repeated_tool_calls: int | None = Field(default=None, ge=1)
    """How many times one identical call (same tool, same arguments) may run: a model
    stuck calling the same thing is stopped."""


class BudgetExceededError(InvocationStop):
    """The invocation reached a limit of its :class:`Budget`."""

    def __init__(self, limit: str, allowed: float, used: float, agent: str) -> None:
        self.limit, self.allowed, self.used, self.agent = limit, allowed, used, agent
        super().__init__(
            f"Budget exceeded: {limit} {_number(used)} of {_number(allowed)} (agent {agent!r})."
        )


def _number(value: float) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def check_model_call(ctx: "InvocationContext", budget: Budget) -> None:
    """Before a model call (already counted): raises when it would go past a limit."""
    counters = ctx._counters
    agent = ctx.agent.name
    if budget.llm_calls is not None and counters.llm_calls > budget.llm_calls:
        raise BudgetExceededError("llm_calls", budget.llm_calls, counters.llm_calls, agent)
    if budget.tokens is not None and counters.tokens >= budget.tokens:
        raise BudgetExceededError("tokens", budget.tokens, counters.tokens, agent)
    _check_time(ctx, budget)


def count_tokens(ctx: "InvocationContext", usage: "types.UsageMetadata") -> None:
    """Adds a model response's reported tokens to the invocation's count."""
    total = usage.total_token_count
    if total is None:
        total = (usage.prompt_token_count or 0) + (usage.candidates_token_count or 0)
    ctx._counters.tokens += total


def check_tool_calls(
    ctx: "InvocationContext", budget: Budget, calls: "list[types.FunctionCall]"
) -> None:
    """Before a response's tool calls run: counts them, raises past a limit."""
    counters = ctx._counters
    agent = ctx.agent.name
    _check_time(ctx, budget)
    counters.tool_calls += len(calls)
    if budget.tool_calls is not None and counters.tool_calls > budget.tool_calls:
        raise BudgetExceededError("tool_calls", budget.tool_calls, counters.tool_calls, agent)
    if budget.repeated_tool_calls is None:
        return
    for call in calls:
        key = f"{call.name}:{json.dumps(call.args or {}, sort_keys=True, default=str)}"
        seen = counters.identical_calls[key] = counters.identical_calls.get(key, 0) + 1
        if seen > budget.repeated_tool_calls:
            raise BudgetExceededError(
                f"repeated_tool_calls ({call.name})", budget.repeated_tool_calls, seen, agent
            )


def _check_time(ctx: "InvocationContext", budget: Budget) -> None:
    if budget.wall_time is None:
        return
    elapsed = time.monotonic() - ctx._counters.started
    if elapsed > budget.wall_time:
        raise BudgetExceededError("wall_time", budget.wall_time, round(elapsed, 3), ctx.agent.name)


def exceeded_event_fields(error: BudgetExceededError) -> dict[str, Any]:
    """The fields of the terminal event for ``error``."""
    return {"author": error.agent, "error_code": BUDGET_EXCEEDED, "error_message": str(error)}
