"""The live display while a benchmark runs."""

from __future__ import annotations

import io

from rich.console import Console

from pyadk.contrib.bench.progress import PlainProgress, RichProgress, make_progress
from pyadk.contrib.bench.records import TaskResult


def result(task: str, passed: bool, reason: str | None = None) -> TaskResult:
    return TaskResult(
        run_id="r",
        task_id=task,
        generator="structured",
        passed=passed,
        failure_reason=reason,
        wall_time=1.5,
        model_calls=3,
        iterations=2,
    )


def test_rich_progress_shows_finished_tasks_and_the_summary() -> None:
    buffer = io.StringIO()
    console = Console(file=buffer, width=160, force_terminal=False)
    with RichProgress(total=2, console=console) as progress:
        progress.finished(result("add_tool", True))
        progress.finished(result("loop_exit", False, "verification_failed: no LoopAgent"))
    text = buffer.getvalue()
    assert "2/2" in text  # the bar's count
    assert "add_tool" in text and "loop_exit" in text
    assert "verification_failed: no LoopAgent" in text
    assert "structured" in text and "50%" in text  # the per-generator summary


def test_plain_progress_prints_a_line_per_task() -> None:
    stream = io.StringIO()
    progress = PlainProgress(total=2, stream=stream)
    progress.finished(result("add_tool", True))
    progress.finished(result("loop_exit", False, "timeout: the generator ran over 5 s"))
    assert stream.getvalue().splitlines() == [
        "[1/2] structured add_tool: pass in 1.5 s",
        "[2/2] structured loop_exit: FAIL (timeout: the generator ran over 5 s) in 1.5 s",
    ]


def test_make_progress_choices() -> None:
    assert isinstance(make_progress(1, plain=True), PlainProgress)
    assert isinstance(make_progress(1), RichProgress)
    quiet = make_progress(1, quiet=True)
    quiet.finished(result("a", True))  # prints nowhere
    assert quiet.done == 1
