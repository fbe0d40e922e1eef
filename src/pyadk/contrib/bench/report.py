"""Reports: results.jsonl, run.json, report.md, report.html and plot.png."""

from __future__ import annotations

import html
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from pyadk.contrib.bench.records import RunMetadata, TaskResult

RESULTS_FILE = "results.jsonl"
METADATA_FILE = "run.json"
PLOT_FILE = "plot.png"


@dataclass
class GeneratorSummary:
    """Aggregates of one generator's results."""

    generator: str
    tasks: int
    passed: int
    mean_wall_time: float
    total_wall_time: float
    mean_model_calls: float
    total_tokens: int
    mean_iterations: float | None

    @property
    def pass_rate(self) -> float:
        """Passed tasks / tasks (0 when there are none)."""
        return self.passed / self.tasks if self.tasks else 0.0


def summarize(results: Iterable[TaskResult]) -> list[GeneratorSummary]:
    """One summary per generator, in order of first appearance."""
    groups: dict[str, list[TaskResult]] = {}
    for result in results:
        groups.setdefault(result.generator, []).append(result)
    summaries = []
    for name, items in groups.items():
        iterations = [r.iterations for r in items if r.iterations is not None]
        total_time = sum(r.wall_time for r in items)
        summaries.append(
            GeneratorSummary(
                generator=name,
                tasks=len(items),
                passed=sum(r.passed for r in items),
                mean_wall_time=total_time / len(items),
                total_wall_time=total_time,
                mean_model_calls=sum(r.model_calls for r in items) / len(items),
                total_tokens=sum(r.total_tokens for r in items),
                mean_iterations=sum(iterations) / len(iterations) if iterations else None,
            )
        )
    return summaries


def append_result(out_dir: Path, result: TaskResult) -> None:
    """Appends one result line to results.jsonl."""
    with (out_dir / RESULTS_FILE).open("a", encoding="utf-8") as file:
        file.write(result.model_dump_json() + "\n")


def read_results(out_dir: Path) -> list[TaskResult]:
    """The results of results.jsonl."""
    path = out_dir / RESULTS_FILE
    if not path.is_file():
        return []
    lines = path.read_text(encoding="utf-8").splitlines()
    return [TaskResult.model_validate_json(line) for line in lines if line.strip()]


def write_metadata(out_dir: Path, metadata: RunMetadata) -> None:
    """Writes run.json."""
    (out_dir / METADATA_FILE).write_text(metadata.model_dump_json(indent=2), encoding="utf-8")


def read_metadata(out_dir: Path) -> RunMetadata:
    """Reads run.json."""
    return RunMetadata.model_validate_json((out_dir / METADATA_FILE).read_text(encoding="utf-8"))


def _fmt(value: float | None, digits: int = 1) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _cell(text: str | None, limit: int = 120) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def summary_rows(summaries: Sequence[GeneratorSummary]) -> list[list[str]]:
    """Rows of the per-generator table."""
    return [
        [
            s.generator,
            f"{s.passed}/{s.tasks}",
            f"{100 * s.pass_rate:.0f}%",
            _fmt(s.mean_wall_time),
            _fmt(s.mean_model_calls),
            str(s.total_tokens),
            _fmt(s.mean_iterations),
        ]
        for s in summaries
    ]


SUMMARY_HEADER = [
    "generator",
    "passed",
    "pass rate",
    "mean time (s)",
    "mean model calls",
    "tokens",
    "mean iterations",
]
TASK_HEADER = [
    "task",
    "generator",
    "result",
    "iterations",
    "model calls",
    "tokens",
    "time (s)",
    "failure reason",
]


def task_rows(results: Sequence[TaskResult]) -> list[list[str]]:
    """Rows of the per-task table."""
    return [
        [
            r.task_id,
            r.generator,
            "pass" if r.passed else "FAIL",
            "-" if r.iterations is None else str(r.iterations),
            str(r.model_calls),
            str(r.total_tokens),
            _fmt(r.wall_time),
            _cell(r.failure_reason),
        ]
        for r in results
    ]


FAILURE_HEADER = ["generator", "failure", "tasks"]


def failure_kind(reason: str) -> str:
    """The kind of a failure reason: its first word (``timeout``, ``verification_failed``...)."""
    return reason.split(":", 1)[0].split(";", 1)[0].strip() or "unknown"


def failure_rows(results: Iterable[TaskResult]) -> list[list[str]]:
    """Rows of the failure table: per generator, how many tasks failed for each kind of
    reason (most frequent first)."""
    counts: dict[str, dict[str, int]] = {}
    for result in results:
        kinds = counts.setdefault(result.generator, {})
        if not result.passed:
            kind = failure_kind(result.failure_reason or "")
            kinds[kind] = kinds.get(kind, 0) + 1
    return [
        [generator, kind, str(count)]
        for generator, kinds in counts.items()
        for kind, count in sorted(kinds.items(), key=lambda item: (-item[1], item[0]))
    ]


def _markdown_table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in rows]
    return "\n".join(lines)


def _metadata_lines(metadata: RunMetadata) -> list[str]:
    return [
        f"- run: `{metadata.run_id}` ({metadata.started_at} to {metadata.finished_at or '?'})",
        f"- task set: `{metadata.task_set}` ({len(metadata.task_ids)} tasks), "
        f"sha256 `{metadata.task_set_hash}`",
        f"- model: `{metadata.model}` ({metadata.model_name or '?'}), "
        f"temperature {metadata.temperature}, seed {metadata.seed}",
        f"- backend: {metadata.backend}, concurrency {metadata.concurrency}, "
        f"timeout {metadata.timeout:g} s (verification {metadata.verify_timeout:g} s)",
        f"- pyadk {metadata.pyadk_version}, Python {metadata.python_version}, "
        f"{metadata.platform}, commit {metadata.git_commit or '?'}",
        "- generators: "
        + ", ".join(f"`{g.name}` = `{g.ref}` {json.dumps(g.options)}" for g in metadata.generators),
    ]


def markdown_report(metadata: RunMetadata, results: Sequence[TaskResult], plot: str | None) -> str:
    """The Markdown report."""
    parts = [f"# Benchmark report: {metadata.task_set}", "", *_metadata_lines(metadata), ""]
    parts += [
        "## Generators",
        "",
        _markdown_table(SUMMARY_HEADER, summary_rows(summarize(results))),
        "",
    ]
    if plot:
        parts += [f"![pass rate and time per generator]({plot})", ""]
    failures = failure_rows(results)
    if failures:
        parts += ["## Failures", "", _markdown_table(FAILURE_HEADER, failures), ""]
    parts += ["## Tasks", "", _markdown_table(TASK_HEADER, task_rows(results)), ""]
    return "\n".join(parts)


def _html_table(header: list[str], rows: list[list[str]]) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>" for row in rows
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def html_report(metadata: RunMetadata, results: Sequence[TaskResult], plot: str | None) -> str:
    """The HTML report (self-contained but for the plot image next to it)."""
    meta = "".join(
        f"<li>{html.escape(line[2:]).replace('`', '')}</li>" for line in _metadata_lines(metadata)
    )
    image = (
        f'<img src="{html.escape(plot)}" alt="pass rate and time per generator">' if plot else ""
    )
    failures = failure_rows(results)
    failure_table = f"<h2>Failures</h2>{_html_table(FAILURE_HEADER, failures)}" if failures else ""
    style = (
        "body{font-family:sans-serif;margin:2em}table{border-collapse:collapse;margin:1em 0}"
        "td,th{border:1px solid #ccc;padding:4px 8px;text-align:left}th{background:#eee}"
    )
    return (
        f"<!doctype html><html><head><meta charset='utf-8'><title>Benchmark report</title>"
        f"<style>{style}</style></head><body>"
        f"<h1>Benchmark report: {html.escape(metadata.task_set)}</h1><ul>{meta}</ul>"
        f"<h2>Generators</h2>{_html_table(SUMMARY_HEADER, summary_rows(summarize(results)))}"
        f"{image}{failure_table}"
        f"<h2>Tasks</h2>{_html_table(TASK_HEADER, task_rows(results))}</body></html>"
    )


def write_plot(out_dir: Path, summaries: Sequence[GeneratorSummary]) -> Path | None:
    """plot.png: pass rate and mean time per generator (None without matplotlib)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    names = [s.generator for s in summaries]
    figure, (rates, times) = plt.subplots(1, 2, figsize=(10, 4))
    rates.bar(names, [100 * s.pass_rate for s in summaries], color="#4c72b0")
    rates.set_ylim(0, 100)
    rates.set_ylabel("pass rate (%)")
    rates.set_title("Pass rate")
    times.bar(names, [s.mean_wall_time for s in summaries], color="#dd8452")
    times.set_ylabel("seconds per task")
    times.set_title("Mean time per task")
    figure.tight_layout()
    path = out_dir / PLOT_FILE
    figure.savefig(path, dpi=100)
    plt.close(figure)
    return path


def write_reports(out_dir: Path) -> dict[str, Path | None]:
    """Writes report.md, report.html and plot.png from run.json and results.jsonl.

    Without matplotlib the reports are written without the plot, and the returned
    ``plot`` is None (the CLI says how to install it)."""
    metadata = read_metadata(out_dir)
    results = read_results(out_dir)
    plot = write_plot(out_dir, summarize(results)) if results else None
    plot_name = plot.name if plot is not None else None
    markdown = out_dir / "report.md"
    markdown.write_text(markdown_report(metadata, results, plot_name), encoding="utf-8")
    page = out_dir / "report.html"
    page.write_text(html_report(metadata, results, plot_name), encoding="utf-8")
    return {"markdown": markdown, "html": page, "plot": plot}
