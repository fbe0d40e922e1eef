"""``test_config.json``: which metrics to compute and the thresholds they must reach."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, SerializeAsAny, ValidationError, field_validator
from pydantic.alias_generators import to_camel

from pyadk.evaluation.common import read_json_file
from pyadk.evaluation.eval_metrics import (
    BaseCriterion,
    EvalMetric,
    HallucinationsCriterion,
    LlmAsAJudgeCriterion,
    LlmBackedUserSimulatorCriterion,
    PrebuiltMetrics,
    RubricsBasedCriterion,
    ToolTrajectoryCriterion,
)
from pyadk.evaluation.simulation import llm_backed_user_simulator as _registers_llm_backed
from pyadk.evaluation.simulation.user_simulator import (
    BaseUserSimulatorConfig,
    parse_user_simulator_config,
)

del _registers_llm_backed  # imported for its registration of the "llm_backed" type

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
    PrebuiltMetrics.PER_TURN_USER_SIMULATOR_QUALITY_V1.value: LlmBackedUserSimulatorCriterion,
}


def _default_criteria() -> dict[str, float | BaseCriterion]:
    return dict(DEFAULT_CRITERIA)


class EvalConfigError(ValueError):
    """A ``test_config.json`` that cannot be used (names the file and the problem)."""


class EvalConfig(BaseModel):
    """``{"criteria": {metric_name: threshold | {"threshold": ..., ...}},
    "user_simulator_config": {...}}`` (keys in snake_case or camelCase)."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True)

    criteria: dict[str, float | SerializeAsAny[BaseCriterion]] = Field(
        default_factory=_default_criteria
    )
    user_simulator_config: SerializeAsAny[BaseUserSimulatorConfig] | None = None
    """How eval cases with a conversation scenario are simulated, by ``type``
    (``"llm_backed"``, the default); None: :class:`LlmBackedUserSimulatorConfig`'s
    defaults."""

    @field_validator("user_simulator_config", mode="before")
    @classmethod
    def _typed_simulator_config(cls, value: Any) -> Any:
        return None if value is None else parse_user_simulator_config(value)

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
