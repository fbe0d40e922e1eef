"""``test_config.json``: which metrics to compute and the thresholds they must reach."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, ValidationError, field_validator

from pyadk.evaluation.common import read_json_file
from pyadk.evaluation.eval_metrics import (
    BaseCriterion,
    EvalMetric,
    HallucinationsCriterion,
    LlmAsAJudgeCriterion,
    PrebuiltMetrics,
    RubricsBasedCriterion,
    ToolTrajectoryCriterion,
)

CONFIG_FILE_NAME = "test_config.json"

DEFAULT_CRITERIA: dict[str, float] = {
    PrebuiltMetrics.TOOL_TRAJECTORY_AVG_SCORE.value: 1.0,
    PrebuiltMetrics.RESPONSE_MATCH_SCORE.value: 0.8,
}
"""Used when no ``test_config.json`` is given or found (google-adk's defaults)."""

_CRITERION_TYPES: dict[str, type[BaseCriterion]] = {
    PrebuiltMetrics.TOOL_TRAJECTORY_AVG_SCORE.value: ToolTrajectoryCriterion,
    PrebuiltMetrics.FINAL_RESPONSE_MATCH_V2.value: LlmAsAJudgeCriterion,
    PrebuiltMetrics.RUBRIC_BASED_FINAL_RESPONSE_QUALITY_V1.value: RubricsBasedCriterion,
    PrebuiltMetrics.RUBRIC_BASED_TOOL_USE_QUALITY_V1.value: RubricsBasedCriterion,
    PrebuiltMetrics.HALLUCINATIONS_V1.value: HallucinationsCriterion,
}


def _default_criteria() -> dict[str, float | BaseCriterion]:
    return dict(DEFAULT_CRITERIA)


class EvalConfigError(ValueError):
    """A ``test_config.json`` that cannot be used (names the file and the problem)."""


class EvalConfig(BaseModel):
    """``{"criteria": {metric_name: threshold | {"threshold": ..., ...}}}``."""

    criteria: dict[str, float | BaseCriterion] = Field(default_factory=_default_criteria)

    @field_validator("criteria", mode="before")
    @classmethod
    def _typed_criteria(cls, value: Any) -> Any:
        if not isinstance(value, dict):
            return value
        typed: dict[str, Any] = {}
        for name, criterion in value.items():
            if isinstance(criterion, dict):
                kind = _CRITERION_TYPES.get(name, BaseCriterion)
                try:
                    criterion = kind.model_validate(criterion)
                except ValidationError as error:  # name the metric: pydantic would not
                    problems = "; ".join(
                        f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in error.errors()
                    )
                    raise ValueError(f"criterion of {name!r}: {problems}") from None
            typed[name] = criterion
        return typed


def get_eval_metrics_from_config(eval_config: EvalConfig) -> list[EvalMetric]:
    """One :class:`EvalMetric` per criterion, in the config's order."""
    metrics = []
    for name, criterion in eval_config.criteria.items():
        if isinstance(criterion, BaseCriterion):
            metrics.append(
                EvalMetric(metric_name=name, threshold=criterion.threshold, criterion=criterion)
            )
        else:
            metrics.append(EvalMetric(metric_name=name, threshold=float(criterion)))
    return metrics


def load_eval_config(path: str | Path) -> EvalConfig:
    """Reads a ``test_config.json``; EvalConfigError if it is missing or malformed."""
    path = Path(path)
    data = read_json_file(path, "eval config", EvalConfigError)
    try:
        return EvalConfig.model_validate(data)
    except ValidationError as error:
        raise EvalConfigError(f"Invalid eval config {path}: {error}") from error


def find_config_for_test_file(test_file: str | Path) -> EvalConfig:
    """The ``test_config.json`` beside ``test_file``, else the default criteria."""
    candidate = Path(test_file).parent / CONFIG_FILE_NAME
    if candidate.is_file():
        return load_eval_config(candidate)
    return EvalConfig()
