"""Metric names, criteria, statuses and per-metric results."""

from __future__ import annotations

from enum import Enum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, SerializeAsAny, field_validator
from pydantic.alias_generators import to_camel

from pyadk import types
from pyadk.evaluation.common import EvalBaseModel
from pyadk.evaluation.eval_case import Invocation
from pyadk.evaluation.eval_rubrics import Rubric as Rubric
from pyadk.evaluation.eval_rubrics import RubricScore as RubricScore


class EvalStatus(Enum):
    """How a metric, an invocation or a case came out."""

    PASSED = 1
    FAILED = 2
    NOT_EVALUATED = 3


class PrebuiltMetrics(Enum):
    """google-adk's metric names. pyadk computes all but ``SAFETY_V1``, which needs
    Vertex AI's evaluation service; the ``*_V1``/``*_V2`` ones are model-judged."""

    TOOL_TRAJECTORY_AVG_SCORE = "tool_trajectory_avg_score"
    RESPONSE_MATCH_SCORE = "response_match_score"
    SAFETY_V1 = "safety_v1"
    FINAL_RESPONSE_MATCH_V2 = "final_response_match_v2"
    RUBRIC_BASED_FINAL_RESPONSE_QUALITY_V1 = "rubric_based_final_response_quality_v1"
    HALLUCINATIONS_V1 = "hallucinations_v1"
    RUBRIC_BASED_TOOL_USE_QUALITY_V1 = "rubric_based_tool_use_quality_v1"
    PER_TURN_USER_SIMULATOR_QUALITY_V1 = "per_turn_user_simulator_quality_v1"


class BaseCriterion(BaseModel):
    """A metric's settings in ``test_config.json``: at least its threshold."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="allow")

    threshold: float


class ToolTrajectoryCriterion(BaseCriterion):
    """How ``tool_trajectory_avg_score`` compares the actual tool calls with the expected."""

    class MatchType(Enum):
        """EXACT: the same calls in the same order, nothing else. IN_ORDER: the expected
        calls appear in this order, other calls may come between. ANY_ORDER: every
        expected call appears (each matched once), in any order, among any others."""

        EXACT = 0
        IN_ORDER = 1
        ANY_ORDER = 2

    match_type: MatchType = MatchType.EXACT
    ignore_args: bool = False
    """Compare tool names only."""

    @field_validator("match_type", mode="before")
    @classmethod
    def _match_type_by_name(cls, value: Any) -> Any:
        if isinstance(value, str):
            try:
                return cls.MatchType[value.strip().upper()]
            except KeyError:
                names = ", ".join(m.name for m in cls.MatchType)
                raise ValueError(f"unknown match_type {value!r} (one of {names})") from None
        return value


class JudgeModelOptions(EvalBaseModel):
    """Which model judges, and how often it is asked about each invocation."""

    judge_model: str = "gemini-2.5-flash"
    """A model name pyadk's model registry resolves (any registered model)."""
    judge_model_config: types.GenerateContentConfig | None = None
    """Generation settings for the judge's requests (temperature, ...)."""
    num_samples: int = Field(default=5, ge=1)
    """Answers asked of the judge per invocation; their majority decides."""
    parallelism_limit: int = Field(default=1, ge=1)
    """How many of those requests may be in flight at once."""


class JudgedCriterion(BaseCriterion):
    """The settings every model-judged metric has: its judge."""

    judge_model_options: JudgeModelOptions = Field(default_factory=JudgeModelOptions)


class LlmAsAJudgeCriterion(JudgedCriterion):
    """Settings of a model-judged metric (``final_response_match_v2``)."""

    include_intermediate_responses_in_final: bool = False
    """Judge the text said on the way (before tool calls, by sub-agents) together with
    the final response."""


class RubricsBasedCriterion(JudgedCriterion):
    """Settings of a rubric-judged metric: the judge and the rubrics every invocation is
    checked against (eval cases and invocations may add their own)."""

    rubrics: list[Rubric] = Field(default_factory=list)
    include_intermediate_responses_in_final: bool = False
    """Judge the text said on the way together with the final response."""


class HallucinationsCriterion(JudgedCriterion):
    """Settings of ``hallucinations_v1``."""

    evaluate_intermediate_nl_responses: bool = False
    """Check the text said on the way too, not only the final response."""


class LlmBackedUserSimulatorCriterion(LlmAsAJudgeCriterion):
    """Settings of ``per_turn_user_simulator_quality_v1``."""

    stop_signal: str = "</finished>"
    """The simulator's stop signal (the one :class:`LlmBackedUserSimulator` writes)."""


class EvalMetric(EvalBaseModel):
    """A metric to compute and the threshold (or criterion) it must reach."""

    metric_name: str
    threshold: float | None = None
    criterion: SerializeAsAny[BaseCriterion] | None = None

    def effective_threshold(self) -> float:
        """The criterion's threshold, else ``threshold``; ValueError if neither is set."""
        if self.criterion is not None:
            return self.criterion.threshold
        if self.threshold is None:
            raise ValueError(f"Metric {self.metric_name!r} has no threshold.")
        return self.threshold


class EvalMetricResult(EvalMetric):
    """A metric's score and status (for one invocation, or for the whole case)."""

    score: float | None = None
    eval_status: EvalStatus
    details: dict[str, Any] = Field(default_factory=dict)


class EvalMetricResultPerInvocation(EvalBaseModel):
    """The metric results of one invocation, beside what happened and what was expected."""

    actual_invocation: Invocation
    expected_invocation: Invocation | None = None
    eval_metric_results: list[EvalMetricResult] = Field(default_factory=list)
