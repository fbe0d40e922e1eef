"""Running a benchmark: every generator on every task, then the reports."""

from __future__ import annotations

import datetime as dt
import platform
import secrets
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pyadk.contrib.bench import report
from pyadk.contrib.bench.backends import make_backend
from pyadk.contrib.bench.records import GeneratorSpec, RunMetadata, TaskPayload, TaskResult
from pyadk.contrib.bench.tasks import TaskSet
from pyadk.contrib.structured_workflow.model_specs import describe_model, resolve_model
from pyadk.contrib.structured_workflow.sandbox import pyadk_path
from pyadk.version import __version__


@dataclass
class BenchConfig:
    """A benchmark run's settings."""

    task_set: TaskSet
    generators: list[GeneratorSpec]
    out_dir: Path
    model: str | None = "local"
    temperature: float | None = 0.0
    seed: int | None = 0
    timeout: float = 900.0
    verify_timeout: float = 120.0
    concurrency: int = 1
    backend: str = "local"
    ray_address: str | None = None

    def __post_init__(self) -> None:
        # Workers run inside their task folder: a relative path would resolve there.
        self.out_dir = Path(self.out_dir).resolve()


@dataclass
class BenchRun:
    """A finished run: where it wrote, what it recorded."""

    out_dir: Path
    metadata: RunMetadata
    results: list[TaskResult]
    reports: dict[str, Path | None] = field(default_factory=dict)


def _git_commit() -> str | None:
    try:
        done = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=pyadk_path(),
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() or None


def _model_name(spec: str | None) -> str | None:
    try:
        return describe_model(resolve_model(spec))
    except Exception:
        return None


def _now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")


def new_run_id() -> str:
    """A sortable, unique run id."""
    return dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%SZ") + "-" + secrets.token_hex(3)


def payloads_for(config: BenchConfig, run_id: str) -> list[TaskPayload]:
    """One payload per (task, generator): tasks in order, generators interleaved."""
    task_set_hash = config.task_set.content_hash()
    return [
        TaskPayload(
            run_id=run_id,
            task=task,
            generator=generator,
            model=config.model,
            temperature=config.temperature,
            seed=config.seed,
            timeout=config.timeout,
            verify_timeout=config.verify_timeout,
            task_dir=str(config.out_dir / "tasks" / generator.name / task.id),
            task_set_hash=task_set_hash,
        )
        for task in config.task_set.tasks
        for generator in config.generators
    ]


async def run_benchmark(config: BenchConfig, progress: Any = None) -> BenchRun:
    """Runs the benchmark and writes run.json, results.jsonl and the reports to out_dir."""
    names = [g.name for g in config.generators]
    if len(set(names)) != len(names):
        raise ValueError(f"generator names must be unique: {names}")
    out_dir = config.out_dir
    out_dir.mkdir(parents=True, exist_ok=True)
    run_id = new_run_id()
    metadata = RunMetadata(
        run_id=run_id,
        started_at=_now(),
        task_set=config.task_set.name,
        task_set_hash=config.task_set.content_hash(),
        task_ids=[t.id for t in config.task_set.tasks],
        generators=config.generators,
        model=config.model,
        model_name=_model_name(config.model),
        seed=config.seed,
        temperature=config.temperature,
        timeout=config.timeout,
        verify_timeout=config.verify_timeout,
        concurrency=config.concurrency,
        backend=config.backend,
        pyadk_version=__version__,
        python_version=platform.python_version(),
        platform=platform.platform(),
        git_commit=_git_commit(),
    )
    report.write_metadata(out_dir, metadata)
    (out_dir / report.RESULTS_FILE).write_text("", encoding="utf-8")
    backend = make_backend(config.backend, config.concurrency, config.ray_address)

    def on_result(result: TaskResult) -> None:
        report.append_result(out_dir, result)
        if progress is not None:
            progress.finished(result)

    def on_start(payload: TaskPayload) -> None:
        if progress is not None:
            progress.started(payload)

    results = await backend.run(payloads_for(config, run_id), on_result, on_start)
    metadata.finished_at = _now()
    report.write_metadata(out_dir, metadata)
    return BenchRun(out_dir, metadata, results, report.write_reports(out_dir))
