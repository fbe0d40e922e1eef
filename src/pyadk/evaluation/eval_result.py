"""What an eval run produced: per case, and per eval set (what the history keeps)."""

from __future__ import annotations

from pydantic import Field

from pyadk.evaluation.common import EvalBaseModel
from pyadk.evaluation.eval_metrics import (
    EvalMetricResult,
    EvalMetricResultPerInvocation,
    EvalStatus,
)


class EvalCaseResult(EvalBaseModel):
    """One run of one eval case."""

    eval_set_file: str | None = None
    eval_set_id: str = ""
    eval_id: str = ""
    final_eval_status: EvalStatus
    overall_eval_metric_results: list[EvalMetricResult] = Field(default_factory=list)
    eval_metric_result_per_invocation: list[EvalMetricResultPerInvocation] = Field(
        default_factory=list
    )
    session_id: str
    user_id: str | None = None
    run: int = 1
    """Which of the ``num_runs`` runs this is (1-based)."""
    error: str | None = None
    """Why the agent could not answer (the case then failed without scores)."""


class EvalSetResult(EvalBaseModel):
    """All case results of one eval run over one eval set."""

    eval_set_result_id: str
    eval_set_result_name: str | None = None
    eval_set_id: str
    eval_case_results: list[EvalCaseResult] = Field(default_factory=list)
    creation_timestamp: float = 0.0
