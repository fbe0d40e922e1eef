"""Live progress while a benchmark runs: a progress bar and a results table (rich)."""

from __future__ import annotations

import sys
from typing import Any, TextIO

from pyadk.contrib.bench.records import TaskPayload, TaskResult
from pyadk.contrib.bench.report import SUMMARY_HEADER, summarize, summary_rows

_RECENT_ROWS = 12


class PlainProgress:
    """One line per finished task (used without rich, or when output is not a terminal)."""

    def __init__(self, total: int, stream: TextIO | Any = None) -> None:
        self.total = total
        self.done = 0
        self.stream = stream or sys.stderr

    def __enter__(self) -> PlainProgress:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def started(self, payload: TaskPayload) -> None:
        """A task started."""

    def finished(self, result: TaskResult) -> None:
        """A task finished."""
        self.done += 1
        verdict = "pass" if result.passed else f"FAIL ({result.failure_reason or '?'})"
        print(
            f"[{self.done}/{self.total}] {result.generator} {result.task_id}: {verdict} "
            f"in {result.wall_time:.1f} s",
            file=self.stream,
            flush=True,
        )


class RichProgress:
    """A progress bar over a table of the finished tasks and a per-generator summary."""

    def __init__(self, total: int, console: Any = None) -> None:
        from rich.console import Console
        from rich.live import Live
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

        self.console = console or Console(stderr=True)
        self.progress = Progress(
            "[progress.description]{task.description}",
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=self.console,
        )
        self.bar = self.progress.add_task("tasks", total=total)
        self.results: list[TaskResult] = []
        self.running: list[str] = []
        self.live = Live(self._render(), console=self.console, refresh_per_second=4)

    def _render(self) -> Any:
        from rich.console import Group
        from rich.table import Table

        recent = Table(title="finished tasks", expand=False)
        for column in ("task", "generator", "result", "iter.", "calls", "time (s)", "reason"):
            recent.add_column(column)
        for r in self.results[-_RECENT_ROWS:]:
            recent.add_row(
                r.task_id,
                r.generator,
                "[green]pass[/green]" if r.passed else "[red]FAIL[/red]",
                "-" if r.iterations is None else str(r.iterations),
                str(r.model_calls),
                f"{r.wall_time:.1f}",
                (r.failure_reason or "")[:60],
            )
        summary = Table(title="generators")
        for column in SUMMARY_HEADER:
            summary.add_column(column)
        for row in summary_rows(summarize(self.results)):
            summary.add_row(*row)
        running = ", ".join(self.running[-4:]) or "-"
        self.progress.update(self.bar, description=f"running: {running}")
        return Group(self.progress, recent, summary)

    def __enter__(self) -> RichProgress:
        self.live.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self.live.update(self._render())
        self.live.__exit__(None, None, None)

    def started(self, payload: TaskPayload) -> None:
        """A task started."""
        self.running.append(f"{payload.generator.name}/{payload.task.id}")
        self.live.update(self._render())

    def finished(self, result: TaskResult) -> None:
        """A task finished."""
        label = f"{result.generator}/{result.task_id}"
        if label in self.running:
            self.running.remove(label)
        self.results.append(result)
        self.progress.advance(self.bar)
        self.live.update(self._render())


def make_progress(total: int, *, quiet: bool = False, plain: bool = False) -> Any:
    """RichProgress when rich is installed and wanted, else PlainProgress (or a silent one)."""
    if quiet:
        return PlainProgress(total, stream=_Null())
    if not plain:
        try:
            return RichProgress(total)
        except ImportError:
            print("(install rich for a live table: pip install 'pyadk[bench]')", file=sys.stderr)
    return PlainProgress(total)


class _Null:
    def write(self, text: str) -> int:
        return len(text)

    def flush(self) -> None:
        return None
