"""Metric names to evaluator classes; custom metrics register here."""

from __future__ import annotations

from collections.abc import Callable

from pyadk.evaluation.eval_metrics import EvalMetric, PrebuiltMetrics
from pyadk.evaluation.evaluator import Evaluator
from pyadk.evaluation.response_evaluator import ResponseEvaluator
from pyadk.evaluation.trajectory_evaluator import TrajectoryEvaluator

EvaluatorFactory = Callable[[EvalMetric], Evaluator]

_REGISTRY: dict[str, EvaluatorFactory] = {
    PrebuiltMetrics.TOOL_TRAJECTORY_AVG_SCORE.value: TrajectoryEvaluator,
    PrebuiltMetrics.RESPONSE_MATCH_SCORE.value: ResponseEvaluator,
}


def register_evaluator(metric_name: str, factory: EvaluatorFactory) -> None:
    """Makes ``metric_name`` usable in ``test_config.json`` (replacing any earlier one)."""
    _REGISTRY[metric_name] = factory


def registered_metrics() -> list[str]:
    """The metric names an eval config may use."""
    return sorted(_REGISTRY)


def get_evaluator(eval_metric: EvalMetric) -> Evaluator:
    """The evaluator of ``eval_metric``; ValueError names the known metrics."""
    factory = _REGISTRY.get(eval_metric.metric_name)
    if factory is None:
        known = ", ".join(registered_metrics())
        raise ValueError(f"Unknown metric {eval_metric.metric_name!r} (known: {known}).")
    return factory(eval_metric)
