"""Metric names to evaluator classes; custom metrics register here."""

from __future__ import annotations

from collections.abc import Callable

from pyadk.evaluation.eval_metrics import EvalMetric, PrebuiltMetrics
from pyadk.evaluation.evaluator import Evaluator
from pyadk.evaluation.final_response_match_v2 import FinalResponseMatchV2Evaluator
from pyadk.evaluation.hallucinations_v1 import HallucinationsV1Evaluator
from pyadk.evaluation.response_evaluator import ResponseEvaluator
from pyadk.evaluation.rubric_based_final_response_quality_v1 import (
    RubricBasedFinalResponseQualityV1Evaluator,
)
from pyadk.evaluation.rubric_based_tool_use_quality_v1 import RubricBasedToolUseV1Evaluator
from pyadk.evaluation.simulation.per_turn_user_simulator_quality_v1 import (
    PerTurnUserSimulatorQualityV1,
)
from pyadk.evaluation.trajectory_evaluator import TrajectoryEvaluator

EvaluatorFactory = Callable[[EvalMetric], Evaluator]

_REGISTRY: dict[str, EvaluatorFactory] = {
    PrebuiltMetrics.TOOL_TRAJECTORY_AVG_SCORE.value: TrajectoryEvaluator,
    PrebuiltMetrics.RESPONSE_MATCH_SCORE.value: ResponseEvaluator,
    PrebuiltMetrics.FINAL_RESPONSE_MATCH_V2.value: FinalResponseMatchV2Evaluator,
    PrebuiltMetrics.RUBRIC_BASED_FINAL_RESPONSE_QUALITY_V1.value: (
        RubricBasedFinalResponseQualityV1Evaluator
    ),
    PrebuiltMetrics.RUBRIC_BASED_TOOL_USE_QUALITY_V1.value: RubricBasedToolUseV1Evaluator,
    PrebuiltMetrics.HALLUCINATIONS_V1.value: HallucinationsV1Evaluator,
    PrebuiltMetrics.PER_TURN_USER_SIMULATOR_QUALITY_V1.value: PerTurnUserSimulatorQualityV1,
}

_JUDGED = {
    PrebuiltMetrics.FINAL_RESPONSE_MATCH_V2.value,
    PrebuiltMetrics.RUBRIC_BASED_FINAL_RESPONSE_QUALITY_V1.value,
    PrebuiltMetrics.RUBRIC_BASED_TOOL_USE_QUALITY_V1.value,
    PrebuiltMetrics.HALLUCINATIONS_V1.value,
    PrebuiltMetrics.PER_TURN_USER_SIMULATOR_QUALITY_V1.value,
}
"""The built-in metrics a judge model scores (listed apart in error messages)."""

_VERTEX = (
    "it needs Google Cloud's Vertex AI evaluation service, and pyadk computes every metric locally"
)
UNAVAILABLE_METRICS: dict[str, str] = {
    PrebuiltMetrics.SAFETY_V1.value: _VERTEX,
    "response_evaluation_score": _VERTEX,
    "multi_turn_task_success_v1": _VERTEX,
    "multi_turn_trajectory_quality_v1": _VERTEX,
    "multi_turn_tool_use_quality_v1": _VERTEX,
}
"""google-adk metrics pyadk does not offer, with the reason (unless registered)."""


def register_evaluator(metric_name: str, factory: EvaluatorFactory) -> None:
    """Makes ``metric_name`` usable in ``test_config.json`` (replacing any earlier one)."""
    _REGISTRY[metric_name] = factory
    _JUDGED.discard(metric_name)


def registered_metrics() -> list[str]:
    """The metric names an eval config may use."""
    return sorted(_REGISTRY)


def get_evaluator(eval_metric: EvalMetric) -> Evaluator:
    """The evaluator of ``eval_metric``; ValueError names the known metrics (and says
    why a google-adk metric pyadk lacks is not available)."""
    name = eval_metric.metric_name
    factory = _REGISTRY.get(name)
    if factory is None:
        local = [m for m in registered_metrics() if m not in _JUDGED]
        known = ", ".join(local)
        if _JUDGED:
            known += f"; model-judged: {', '.join(sorted(_JUDGED))}"
        if name in UNAVAILABLE_METRICS:
            raise ValueError(
                f"Metric {name!r} is not available offline: {UNAVAILABLE_METRICS[name]} "
                f"(known: {known})."
            )
        raise ValueError(f"Unknown metric {name!r} (known: {known}).")
    return factory(eval_metric)
