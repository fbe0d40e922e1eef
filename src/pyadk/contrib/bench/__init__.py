"""Benchmarking agent generators: task sets, a runner with local or Ray backends, reports.

``python -m pyadk.contrib.bench run --generator structured --generator baseline``
runs the starter suite; see docs/benchmarking.md.
"""

from pyadk.contrib.bench.backends import LocalBackend, RayBackend
from pyadk.contrib.bench.records import GeneratorSpec, RunMetadata, TaskPayload, TaskResult
from pyadk.contrib.bench.report import read_results, summarize, write_reports
from pyadk.contrib.bench.runner import BenchConfig, BenchRun, run_benchmark
from pyadk.contrib.bench.tasks import (
    STARTER_SUITE,
    Task,
    TaskSet,
    Verification,
    load_task_set,
    parse_task_set,
)
from pyadk.contrib.bench.worker import generator_spec, run_task

__all__ = [
    "STARTER_SUITE",
    "BenchConfig",
    "BenchRun",
    "GeneratorSpec",
    "LocalBackend",
    "RayBackend",
    "RunMetadata",
    "Task",
    "TaskPayload",
    "TaskResult",
    "TaskSet",
    "Verification",
    "generator_spec",
    "load_task_set",
    "parse_task_set",
    "read_results",
    "run_benchmark",
    "run_task",
    "summarize",
    "write_reports",
]
