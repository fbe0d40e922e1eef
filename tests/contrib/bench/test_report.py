"""Reports: summaries, Markdown, HTML, the plot, and the report without matplotlib."""

from __future__ import annotations

import builtins
from pathlib import Path
from typing import Any

import pytest

from pyadk.contrib.bench import report
from pyadk.contrib.bench.records import GeneratorSpec, RunMetadata, TaskResult


def result(task: str, generator: str, passed: bool, **fields: Any) -> TaskResult:
    return TaskResult(run_id="r", task_id=task, generator=generator, passed=passed, **fields)


RESULTS = [
    result("a", "fast", True, wall_time=2.0, model_calls=4, total_tokens=100, iterations=1),
    result(
        "b",
        "fast",
        False,
        wall_time=4.0,
        model_calls=6,
        total_tokens=50,
        iterations=3,
        failure_reason="verification_failed: x | y <b>",
    ),
    result("a", "plain", True, wall_time=10.0),
    result("b", "plain", False, failure_reason="timeout: the generator ran over 60 s"),
    result("c", "plain", False, failure_reason="timeout: the generator ran over 60 s"),
    result("d", "plain", False, failure_reason="no_solution: the generator wrote no code"),
]


def metadata() -> RunMetadata:
    return RunMetadata(
        run_id="r",
        started_at="2026-01-01T00:00:00+00:00",
        finished_at="2026-01-01T00:10:00+00:00",
        task_set="demo",
        task_set_hash="ab" * 32,
        task_ids=["a", "b"],
        generators=[GeneratorSpec(name="fast", ref="m:f", options={"max_iterations": 3})],
        model="local",
        model_name="qwen",
        seed=0,
        temperature=0.0,
        timeout=60,
        verify_timeout=30,
        concurrency=1,
        backend="local",
        pyadk_version="0.1.0",
        python_version="3.11",
        platform="linux",
    )


def write_run(out: Path) -> None:
    report.write_metadata(out, metadata())
    for item in RESULTS:
        report.append_result(out, item)


def test_summaries_per_generator() -> None:
    fast, plain = report.summarize(RESULTS)
    assert (fast.generator, fast.tasks, fast.passed, fast.pass_rate) == ("fast", 2, 1, 0.5)
    assert (fast.mean_wall_time, fast.mean_model_calls, fast.total_tokens) == (3.0, 5.0, 150)
    assert fast.mean_iterations == 2.0
    assert (plain.pass_rate, plain.mean_iterations) == (0.25, None)
    assert report.summary_rows([fast]) == [["fast", "1/2", "50%", "3.0", "5.0", "150", "2.0"]]


def test_results_round_trip_through_jsonl(tmp_path: Path) -> None:
    write_run(tmp_path)
    assert report.read_results(tmp_path) == RESULTS
    assert report.read_metadata(tmp_path) == metadata()
    assert report.read_results(tmp_path / "missing") == []


def test_failures_are_counted_by_kind() -> None:
    assert report.failure_rows(RESULTS) == [
        ["fast", "verification_failed", "1"],
        ["plain", "timeout", "2"],
        ["plain", "no_solution", "1"],
    ]
    assert report.failure_kind("timeout: over; verification_failed: x") == "timeout"
    assert report.failure_kind("") == "unknown"
    assert report.failure_rows(RESULTS[:1]) == []


def test_markdown_and_html_reports(tmp_path: Path) -> None:
    write_run(tmp_path)
    written = report.write_reports(tmp_path)
    markdown = written["markdown"].read_text(encoding="utf-8")
    assert "# Benchmark report: demo" in markdown
    assert f"sha256 `{'ab' * 32}`" in markdown
    assert "- model: `local` (qwen), temperature 0.0, seed 0" in markdown
    assert '`fast` = `m:f` {"max_iterations": 3}' in markdown
    assert "| fast | 1/2 | 50% | 3.0 | 5.0 | 150 | 2.0 |" in markdown
    assert "| b | fast | FAIL | 3 | 6 | 50 | 4.0 | verification_failed: x \\| y <b> |" in markdown
    assert "## Failures\n\n| generator | failure | tasks |" in markdown
    assert "| plain | timeout | 2 |" in markdown
    page = written["html"].read_text(encoding="utf-8")
    assert "<td>verification_failed: x | y &lt;b&gt;</td>" in page
    assert '<img src="plot.png"' in page
    assert "<td>plain</td><td>timeout</td><td>2</td>" in page
    assert written["plot"] == tmp_path / "plot.png"
    assert written["plot"].read_bytes().startswith(b"\x89PNG")


def test_reports_without_matplotlib(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real_import = builtins.__import__

    def no_matplotlib(name: str, *args: Any, **kwargs: Any) -> Any:
        if name.startswith("matplotlib"):
            raise ImportError("No module named 'matplotlib'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_matplotlib)
    write_run(tmp_path)
    written = report.write_reports(tmp_path)
    assert written["plot"] is None and not (tmp_path / "plot.png").exists()
    assert "![" not in written["markdown"].read_text(encoding="utf-8")
    assert "<img" not in written["html"].read_text(encoding="utf-8")
