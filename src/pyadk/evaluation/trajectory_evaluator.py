"""``tool_trajectory_avg_score``: did the agent call the expected tools (1 or 0 per
invocation, averaged)?"""

from __future__ import annotations

from typing import Any

from pyadk import types
from pyadk.evaluation.eval_case import Invocation, get_all_tool_calls
from pyadk.evaluation.eval_metrics import EvalMetric, ToolTrajectoryCriterion
from pyadk.evaluation.evaluator import Evaluator

MatchType = ToolTrajectoryCriterion.MatchType


def describe_call(call: types.FunctionCall) -> str:
    """``name(arg=value, ...)``, the way failure details show a call."""
    args = ", ".join(f"{key}={value!r}" for key, value in (call.args or {}).items())
    return f"{call.name}({args})"


class TrajectoryEvaluator(Evaluator):
    """Compares tool calls by name and arguments (ids are never compared: they cannot be
    predicted), as the criterion's ``match_type`` says."""

    def __init__(self, eval_metric: EvalMetric) -> None:
        super().__init__(eval_metric)
        criterion = eval_metric.criterion
        if criterion is not None and not isinstance(criterion, ToolTrajectoryCriterion):
            criterion = ToolTrajectoryCriterion.model_validate(criterion.model_dump())
        self.match_type = criterion.match_type if criterion else MatchType.EXACT
        self.ignore_args = criterion.ignore_args if criterion else False

    def score_invocation(
        self, actual: Invocation, expected: Invocation
    ) -> tuple[float, dict[str, Any]]:
        got = get_all_tool_calls(actual.intermediate_data)
        wanted = get_all_tool_calls(expected.intermediate_data)
        problem = trajectory_mismatch(got, wanted, self.match_type, ignore_args=self.ignore_args)
        if problem is None:
            return 1.0, {}
        return 0.0, {
            "reason": problem,
            "match_type": self.match_type.name,
            "expected": [describe_call(c) for c in wanted],
            "actual": [describe_call(c) for c in got],
        }


def trajectory_mismatch(
    got: list[types.FunctionCall],
    wanted: list[types.FunctionCall],
    match_type: MatchType = MatchType.EXACT,
    *,
    ignore_args: bool = False,
) -> str | None:
    """None when the calls ``got`` match ``wanted`` as ``match_type`` says (names and
    arguments, or names only with ``ignore_args``; never ids); else what is wrong, in
    one sentence."""

    def same(actual: types.FunctionCall, expected: types.FunctionCall) -> bool:
        if actual.name != expected.name:
            return False
        return ignore_args or (actual.args or {}) == (expected.args or {})

    if match_type is MatchType.EXACT:
        for index, (a, e) in enumerate(zip(got, wanted, strict=False)):
            if not same(a, e):
                return f"call {index + 1}: expected {describe_call(e)}, got {describe_call(a)}"
        if len(got) != len(wanted):
            return f"expected {len(wanted)} tool calls, got {len(got)}"
        return None
    if match_type is MatchType.IN_ORDER:
        position = 0
        for call in got:
            if position < len(wanted) and same(call, wanted[position]):
                position += 1
        if position == len(wanted):
            return None
        return f"{describe_call(wanted[position])} not called in order"
    remaining = list(got)
    for expected_call in wanted:
        match = next((c for c in remaining if same(c, expected_call)), None)
        if match is None:
            return f"{describe_call(expected_call)} not called"
        remaining.remove(match)
    return None
