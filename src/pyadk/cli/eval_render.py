"""Terminal rendering of `pyadk eval` results (Rich, no markup interpretation)."""

from __future__ import annotations

from rich import box
from rich.console import Console
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

from pyadk.cli.compact_json import compact_json
from pyadk.evaluation import (
    CaseSummary,
    EvalCaseResult,
    EvalMetricResultPerInvocation,
    EvalStatus,
    IntermediateData,
    failure_lines,
    get_all_tool_calls,
)
from pyadk.evaluation.eval_case import InvocationEvents
from pyadk.evaluation.response_evaluator import text_of
from pyadk.evaluation.trajectory_evaluator import describe_call

STATUS_STYLES = {
    EvalStatus.PASSED: "green",
    EvalStatus.FAILED: "bold red",
    EvalStatus.NOT_EVALUATED: "yellow",
}

_SHOWN_ABOVE = frozenset({"expected", "actual"})
"""Details keys already printed as the expected and actual lines of the invocation."""


def _status(status: EvalStatus) -> Text:
    return Text(status.name, style=STATUS_STYLES[status])


def summary_table(summaries: list[CaseSummary]) -> Table:
    """One row per case and metric; the case's columns are filled on its first row."""
    table = Table(box=box.SIMPLE_HEAD, show_edge=False)
    for header in ("Eval set", "Eval id", "Status", "Metric", "Mean score", "Threshold"):
        table.add_column(header, overflow="fold")  # long ids wrap, never cut
    table.add_column("Passed runs", justify="right")
    for case in summaries:
        first: list[Text] = [Text(case.eval_set_id), Text(case.eval_id), _status(case.status)]
        if not case.metrics:
            table.add_row(*first, Text("-"))
        for m in case.metrics:
            mean = "n/a" if m.mean_score is None else f"{m.mean_score:.3f}"
            cells = [m.metric_name, mean, str(m.threshold), f"{m.passed_runs}/{m.runs}"]
            table.add_row(*first, *(Text(cell) for cell in cells))
            first = [Text(""), Text(""), Text("")]
    return table


def print_summary(console: Console, summaries: list[CaseSummary]) -> None:
    """The table, then one line per failed metric or failed run."""
    if not summaries:
        console.print(Text("No eval cases to run.", style="yellow"))
        return
    table = summary_table(summaries)
    if not console.is_terminal:  # a log or a pipe: one line per row, however wide
        console.width = max(console.width, _natural_width(console, table))
    console.print(table)
    for line in failure_lines(summaries):
        console.print(Text(line, style="red"))


def print_counts(console: Console, summaries: list[CaseSummary]) -> dict[EvalStatus, int]:
    """``N passed, M failed`` (and how many were not evaluated, if any); the counts."""
    counts = dict.fromkeys(EvalStatus, 0)
    for case in summaries:
        counts[case.status] += 1
    line = f"{counts[EvalStatus.PASSED]} passed, {counts[EvalStatus.FAILED]} failed"
    if counts[EvalStatus.NOT_EVALUATED]:
        line += f", {counts[EvalStatus.NOT_EVALUATED]} not evaluated"
    console.print(line, markup=False)
    return counts


def _natural_width(console: Console, table: Table) -> int:
    options = console.options.update(max_width=10_000)
    return Measurement.get(console, options, table).maximum


def print_details(console: Console, results: list[EvalCaseResult], num_runs: int) -> None:
    """Per run of each case: every invocation, what was expected and each metric's verdict."""
    for result in results:
        console.print()
        title = f"{result.eval_set_id}/{result.eval_id}"
        if num_runs > 1:
            title += f" (run {result.run}/{num_runs})"
        header = Text(f"{title}: ", style="bold")
        header.append_text(_status(result.final_eval_status))
        console.print(header)
        if result.error is not None:
            console.print(Text(f"  error: {result.error}", style="red"))
        for index, row in enumerate(result.eval_metric_result_per_invocation, start=1):
            _print_invocation(console, index, row)


def _print_invocation(console: Console, index: int, row: EvalMetricResultPerInvocation) -> None:
    actual, expected = row.actual_invocation, row.expected_invocation
    console.print(Text(f"  invocation {index}", style="bold"))
    lines = [("user", text_of(actual.user_content))]
    if expected is not None:
        lines.append(("expected tool calls", _calls(expected.intermediate_data)))
    lines.append(("actual tool calls", _calls(actual.intermediate_data)))
    if expected is not None:
        lines.append(("expected response", text_of(expected.final_response)))
    lines.append(("actual response", text_of(actual.final_response)))
    for label, value in lines:
        console.print(Text(f"    {label}: {value}"))
    for metric in row.eval_metric_results:
        score = "n/a" if metric.score is None else f"{metric.score:.3f}"
        line = Text(
            f"    {metric.metric_name}: {score} (threshold {metric.effective_threshold()}) "
        )
        line.append_text(_status(metric.eval_status))
        shown = {k: v for k, v in metric.details.items() if k not in _SHOWN_ABOVE}
        if shown:
            details = "; ".join(f"{key}: {_plain(value)}" for key, value in shown.items())
            line.append(f" ({details})", style="dim")
        console.print(line)


def _plain(value: object) -> str:
    return value if isinstance(value, str) else compact_json(value)


def _calls(intermediate_data: IntermediateData | InvocationEvents | None) -> str:
    calls = get_all_tool_calls(intermediate_data)
    return ", ".join(describe_call(call) for call in calls) or "(none)"
