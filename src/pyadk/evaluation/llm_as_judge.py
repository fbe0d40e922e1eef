"""LlmAsJudge: the base of the model-judged metrics. A judge model (any model pyadk's
registry resolves) is asked ``num_samples`` times about each invocation; subclasses
write the prompt, read the answers and fold them into scores."""

from __future__ import annotations

import abc
import asyncio
from typing import Any, ClassVar, Generic, TypeVar

from pydantic import Field, ValidationError

from pyadk.evaluation.common import EvalBaseModel
from pyadk.evaluation.eval_case import Invocation
from pyadk.evaluation.eval_metrics import EvalMetric, EvalStatus, JudgedCriterion
from pyadk.evaluation.eval_rubrics import RubricScore
from pyadk.evaluation.evaluator import EvaluationResult, Evaluator, PerInvocationResult
from pyadk.evaluation.judge_model import JudgeModel
from pyadk.evaluation.llm_as_judge_utils import get_eval_status
from pyadk.models.llm_request import LlmRequest
from pyadk.models.llm_response import LlmResponse

CriterionT = TypeVar("CriterionT", bound=JudgedCriterion)


class AutoRaterScore(EvalBaseModel):
    """What one judge answer says: a score (None when it cannot be read) and, for
    rubric metrics, one score per rubric."""

    score: float | None = None
    rubric_scores: list[RubricScore] | None = None
    details: dict[str, Any] = Field(default_factory=dict)
    """Why (the judge's reasoning, or why its answer could not be read)."""


def criterion_of(eval_metric: EvalMetric, criterion_type: type[CriterionT]) -> CriterionT:
    """The metric's criterion as ``criterion_type`` (a bare threshold gets the default
    judge); ValueError naming the metric when it does not fit."""
    criterion = eval_metric.criterion
    if isinstance(criterion, criterion_type):
        return criterion
    data: dict[str, Any] = (
        criterion.model_dump() if criterion is not None else {"threshold": eval_metric.threshold}
    )
    try:
        return criterion_type.model_validate(data)
    except ValidationError as error:
        raise ValueError(
            f"Metric {eval_metric.metric_name!r} needs a {criterion_type.__name__}: {error}"
        ) from None


class LlmAsJudge(Evaluator, Generic[CriterionT]):
    """A metric a judge model scores. Subclasses implement
    :meth:`format_auto_rater_prompt` (may raise ValueError: the invocation is then not
    evaluated, with that reason), :meth:`convert_auto_rater_response_to_score`,
    :meth:`aggregate_per_invocation_samples` and :meth:`aggregate_invocation_results`.

    A judge that fails (raises, answers with an error) leaves the invocation
    NOT_EVALUATED with the reason in its details; the evaluation goes on.
    """

    criterion_type: ClassVar[type[JudgedCriterion]] = JudgedCriterion

    def __init__(
        self,
        eval_metric: EvalMetric,
        criterion_type: type[CriterionT],
        expected_invocations_required: bool = False,
    ) -> None:
        super().__init__(eval_metric)
        self._eval_metric = eval_metric
        self._criterion: CriterionT = criterion_of(eval_metric, criterion_type)
        self._expected_invocations_required = expected_invocations_required
        self._judge_model_options = self._criterion.judge_model_options
        self.judge = JudgeModel(self._judge_model_options, eval_metric.metric_name)

    @abc.abstractmethod
    def format_auto_rater_prompt(self, actual: Invocation, expected: Invocation | None) -> str:
        """The prompt that asks the judge about one invocation."""

    @abc.abstractmethod
    def convert_auto_rater_response_to_score(
        self, auto_rater_response: LlmResponse
    ) -> AutoRaterScore:
        """What one judge answer says (score None when it cannot be read)."""

    @abc.abstractmethod
    def aggregate_per_invocation_samples(
        self, per_invocation_samples: list[PerInvocationResult]
    ) -> PerInvocationResult:
        """One result from the ``num_samples`` answers about one invocation."""

    @abc.abstractmethod
    def aggregate_invocation_results(
        self, per_invocation_results: list[PerInvocationResult]
    ) -> EvaluationResult:
        """The conversation's result from its invocations' results."""

    def score_invocation(
        self, actual: Invocation, expected: Invocation
    ) -> tuple[float, dict[str, Any]]:
        raise TypeError(f"{type(self).__name__} is judged by a model: await evaluate_invocations.")

    async def evaluate_invocations(
        self,
        actual_invocations: list[Invocation],
        expected_invocations: list[Invocation] | None = None,
        conversation_scenario: Any = None,
    ) -> EvaluationResult:
        """Asks the judge about each invocation in turn (its samples concurrently, at
        most ``parallelism_limit`` at once) and aggregates."""
        del conversation_scenario  # each invocation is judged on its own
        name = self._eval_metric.metric_name
        if expected_invocations is None:
            if self._expected_invocations_required:
                raise ValueError(f"Metric {name!r} compares with expected invocations: give them.")
            expected: list[Invocation | None] = [None] * len(actual_invocations)
        elif len(expected_invocations) != len(actual_invocations):
            raise ValueError(
                f"{len(actual_invocations)} actual invocations for "
                f"{len(expected_invocations)} expected ones."
            )
        else:
            expected = list(expected_invocations)
        results = [
            await self._judge(a, e) for a, e in zip(actual_invocations, expected, strict=True)
        ]
        return self.aggregate_invocation_results(results) if results else EvaluationResult()

    @property
    def expected_invocations_required(self) -> bool:
        return self._expected_invocations_required

    async def close(self) -> None:
        """Closes the judge model's client, if one was made."""
        await self.judge.close()

    async def _judge(self, actual: Invocation, expected: Invocation | None) -> PerInvocationResult:
        try:
            prompt = self.format_auto_rater_prompt(actual, expected)
        except ValueError as error:
            return _not_evaluated(actual, expected, str(error))
        llm_request = self.judge.request(prompt)
        semaphore = asyncio.Semaphore(self._judge_model_options.parallelism_limit)

        async def sample() -> PerInvocationResult:
            async with semaphore:
                return await self._evaluate_single_sample(
                    llm_request.model_copy(deep=True), actual, expected
                )

        count = self._judge_model_options.num_samples
        samples = await asyncio.gather(*(sample() for _ in range(count)), return_exceptions=True)
        for outcome in samples:
            if isinstance(outcome, BaseException):
                if not isinstance(outcome, Exception):
                    raise outcome
                return _not_evaluated(actual, expected, self.judge.failure(outcome))
        return self.aggregate_per_invocation_samples(
            [s for s in samples if isinstance(s, PerInvocationResult)]
        )

    async def _evaluate_single_sample(
        self, llm_request: LlmRequest, actual: Invocation, expected: Invocation | None
    ) -> PerInvocationResult:
        verdict = self.convert_auto_rater_response_to_score(await self.judge.ask(llm_request))
        return PerInvocationResult(
            actual_invocation=actual,
            expected_invocation=expected,
            score=verdict.score,
            eval_status=get_eval_status(verdict.score, self.threshold),
            details=dict(verdict.details),
            rubric_scores=verdict.rubric_scores,
        )


def _not_evaluated(
    actual: Invocation, expected: Invocation | None, reason: str
) -> PerInvocationResult:
    return PerInvocationResult(actual, expected, None, EvalStatus.NOT_EVALUATED, {"reason": reason})
