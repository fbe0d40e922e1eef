"""The interface of a metric: actual invocations against expected ones, one score each."""

from __future__ import annotations

import abc
from collections.abc import Awaitable
from dataclasses import dataclass, field
from typing import Any

from pyadk.evaluation.eval_case import ConversationScenario, Invocation
from pyadk.evaluation.eval_metrics import EvalMetric, EvalStatus
from pyadk.evaluation.eval_rubrics import RubricScore


@dataclass
class PerInvocationResult:
    """A metric's verdict on one invocation."""

    actual_invocation: Invocation
    expected_invocation: Invocation | None
    score: float | None = None
    eval_status: EvalStatus = EvalStatus.NOT_EVALUATED
    details: dict[str, Any] = field(default_factory=dict)
    rubric_scores: list[RubricScore] | None = None
    """The judge's verdict per rubric (rubric-based metrics only)."""


@dataclass
class EvaluationResult:
    """A metric's verdict on a whole conversation: the mean of its invocations' scores."""

    overall_score: float | None = None
    overall_eval_status: EvalStatus = EvalStatus.NOT_EVALUATED
    per_invocation_results: list[PerInvocationResult] = field(default_factory=list)
    overall_rubric_scores: list[RubricScore] | None = None
    """Each rubric's mean score over the invocations (rubric-based metrics only)."""


class Evaluator(abc.ABC):
    """Computes one metric. Subclasses score one invocation; averaging is shared.
    Model-judged metrics (:class:`~pyadk.evaluation.llm_as_judge.LlmAsJudge`) replace
    ``evaluate_invocations`` with a coroutine; callers await what is awaitable."""

    def __init__(self, eval_metric: EvalMetric) -> None:
        self.eval_metric = eval_metric
        self.threshold = eval_metric.effective_threshold()

    @property
    def expected_invocations_required(self) -> bool:
        """Whether the metric compares with expected invocations (True here: a
        simulated conversation, which has none, leaves it not evaluated)."""
        return True

    @property
    def conversation_scenario_required(self) -> bool:
        """Whether the metric judges a simulated conversation against its scenario."""
        return False

    @abc.abstractmethod
    def score_invocation(
        self, actual: Invocation, expected: Invocation
    ) -> tuple[float, dict[str, Any]]:
        """The score of one invocation (0 to 1) and details that explain it."""

    def status(self, score: float) -> EvalStatus:
        """PASSED when ``score`` reaches the threshold."""
        return EvalStatus.PASSED if score >= self.threshold else EvalStatus.FAILED

    async def close(self) -> None:  # noqa: B027 - optional hook, nothing to release here
        """Releases what the evaluator holds (a judge model's client); no-op here."""

    def evaluate_invocations(
        self,
        actual_invocations: list[Invocation],
        expected_invocations: list[Invocation] | None = None,
        conversation_scenario: ConversationScenario | None = None,
    ) -> EvaluationResult | Awaitable[EvaluationResult]:
        """Scores each actual invocation against the expected one at the same place."""
        del conversation_scenario  # compared with expected invocations only
        if expected_invocations is None:
            raise ValueError(f"Metric {self.eval_metric.metric_name!r} needs expected invocations.")
        if len(actual_invocations) != len(expected_invocations):
            raise ValueError(
                f"{len(actual_invocations)} actual invocations for "
                f"{len(expected_invocations)} expected ones."
            )
        results = []
        for actual, expected in zip(actual_invocations, expected_invocations, strict=True):
            score, details = self.score_invocation(actual, expected)
            results.append(
                PerInvocationResult(actual, expected, score, self.status(score), details)
            )
        if not results:
            return EvaluationResult()
        overall = sum(r.score or 0.0 for r in results) / len(results)
        return EvaluationResult(overall, self.status(overall), results)
