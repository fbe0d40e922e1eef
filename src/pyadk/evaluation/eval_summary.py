"""Case results folded over runs: per metric the mean score and how many runs passed."""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field

from pyadk.evaluation.eval_metrics import EvalStatus
from pyadk.evaluation.eval_result import EvalCaseResult


@dataclass
class MetricSummary:
    """One metric of one case over all its runs."""

    metric_name: str
    threshold: float
    mean_score: float | None
    """The mean over runs that produced a score (None when none did)."""
    passed_runs: int
    runs: int
    scores: list[float] = field(default_factory=list)

    @property
    def status(self) -> EvalStatus:
        """PASSED when the mean reaches the threshold."""
        if self.mean_score is None:
            return EvalStatus.NOT_EVALUATED
        return EvalStatus.PASSED if self.mean_score >= self.threshold else EvalStatus.FAILED

    @property
    def stdev(self) -> float:
        """The spread of the scores over runs (0 for one run)."""
        return statistics.pstdev(self.scores) if len(self.scores) > 1 else 0.0


@dataclass
class CaseSummary:
    """One eval case over all its runs."""

    eval_set_id: str
    eval_id: str
    runs: int
    metrics: list[MetricSummary] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    """Why runs could not be scored (the agent raised)."""

    @property
    def status(self) -> EvalStatus:
        """FAILED if a run raised or a metric's mean misses its threshold."""
        statuses = {m.status for m in self.metrics}
        if self.errors or EvalStatus.FAILED in statuses:
            return EvalStatus.FAILED
        return EvalStatus.PASSED if EvalStatus.PASSED in statuses else EvalStatus.NOT_EVALUATED


def summarize(results: list[EvalCaseResult]) -> list[CaseSummary]:
    """One summary per (eval set, eval case), in the order the cases first ran."""
    cases: dict[tuple[str, str], CaseSummary] = {}
    metrics: dict[tuple[str, str, str], MetricSummary] = {}
    for result in results:
        key = (result.eval_set_id, result.eval_id)
        case = cases.setdefault(key, CaseSummary(result.eval_set_id, result.eval_id, 0))
        case.runs += 1
        if result.error is not None:
            case.errors.append(f"run {result.run}: {result.error}")
        for metric in result.overall_eval_metric_results:
            summary = metrics.get((*key, metric.metric_name))
            if summary is None:
                threshold = metric.effective_threshold()
                summary = MetricSummary(metric.metric_name, threshold, None, 0, 0)
                metrics[(*key, metric.metric_name)] = summary
                case.metrics.append(summary)
            summary.runs += 1
            summary.passed_runs += metric.eval_status is EvalStatus.PASSED
            if metric.score is not None:
                summary.scores.append(metric.score)
                summary.mean_score = statistics.fmean(summary.scores)
    return list(cases.values())


def failure_lines(summaries: list[CaseSummary]) -> list[str]:
    """One line per failed metric, failed run or metric no run could score (a judge
    model that failed or could not be read), naming the case."""
    lines: list[str] = []
    for case in summaries:
        name = f"{case.eval_set_id}/{case.eval_id}" if case.eval_set_id else case.eval_id
        lines.extend(f"{name}: {error}" for error in case.errors)
        for metric in case.metrics:
            if metric.status is EvalStatus.FAILED:
                lines.append(
                    f"{name}: {metric.metric_name} {metric.mean_score:.3f} < "
                    f"{metric.threshold} (passed {metric.passed_runs}/{metric.runs} runs)"
                )
            elif metric.status is EvalStatus.NOT_EVALUATED and metric.runs:
                lines.append(
                    f"{name}: {metric.metric_name} not evaluated: no score in "
                    f"{metric.runs} run(s) (the details of each invocation say why)"
                )
    return lines


def format_summaries(summaries: list[CaseSummary]) -> str:
    """A plain-text table: one line per case and metric (mean, spread, passed runs)."""
    lines = []
    for case in summaries:
        lines.append(f"{case.eval_set_id}/{case.eval_id}: {case.status.name}")
        lines.extend(f"  error in {error}" for error in case.errors)
        for m in case.metrics:
            mean = "n/a" if m.mean_score is None else f"{m.mean_score:.3f}"
            lines.append(
                f"  {m.metric_name}: {mean} (threshold {m.threshold}, "
                f"stdev {m.stdev:.3f}, passed {m.passed_runs}/{m.runs} runs) {m.status.name}"
            )
    return "\n".join(lines)
