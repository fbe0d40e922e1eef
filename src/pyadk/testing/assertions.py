"""Assertions on what an agent did in a run: its tool calls (the trajectory)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Literal

from pyadk import types
from pyadk.events.event import Event
from pyadk.events.tool_confirmation import REQUEST_CONFIRMATION_FUNCTION_CALL_NAME

MatchKind = Literal["exact", "in_order", "any_order"]

ExpectedCall = str | tuple[str, dict[str, Any]] | types.FunctionCall
"""A tool name (with any arguments), ``(name, args)``, or a call."""


def tool_calls(events: Iterable[Event], *, agent: str | None = None) -> list[types.FunctionCall]:
    """The tool calls made in ``events`` (of ``agent`` only, when given), in order;
    partial chunks and approval requests are left out."""
    return [
        call
        for event in events
        if not event.partial and (agent is None or event.author == agent)
        for call in event.get_function_calls()
        if call.name != REQUEST_CONFIRMATION_FUNCTION_CALL_NAME
    ]


def assert_tool_calls(
    events: Iterable[Event],
    expected: Sequence[ExpectedCall],
    *,
    match: MatchKind = "exact",
    ignore_args: bool = False,
    agent: str | None = None,
) -> None:
    """Asserts the run's tool calls match ``expected`` (names and arguments; given as
    bare names, names only) as ``match`` says: ``exact`` (same calls, same order,
    nothing else), ``in_order`` (these in this order, others may come between) or
    ``any_order`` (each of these, in any order, among any others). The error shows
    what was expected and what was called."""
    from pyadk.evaluation.eval_metrics import ToolTrajectoryCriterion
    from pyadk.evaluation.trajectory_evaluator import describe_call, trajectory_mismatch

    got = tool_calls(events, agent=agent)
    wanted = [_as_call(item) for item in expected]
    names = [isinstance(item, str) for item in expected]
    if any(names) and not all(names):
        raise TypeError("Give the expected calls all as names, or all with their arguments.")
    names_only = ignore_args or (bool(names) and all(names))
    kind = ToolTrajectoryCriterion.MatchType[match.upper()]
    problem = trajectory_mismatch(got, wanted, kind, ignore_args=names_only)
    if problem is not None:
        shown_expected = ", ".join(describe_call(c) for c in wanted) or "none"
        shown_got = ", ".join(describe_call(c) for c in got) or "none"
        raise AssertionError(
            f"Tool calls do not match ({match}): {problem}.\n"
            f"  expected: {shown_expected}\n  called:   {shown_got}"
        )


def _as_call(item: ExpectedCall) -> types.FunctionCall:
    if isinstance(item, types.FunctionCall):
        return item
    if isinstance(item, str):
        return types.FunctionCall(name=item, args={})
    name, args = item
    return types.FunctionCall(name=name, args=args)
