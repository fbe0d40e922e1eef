"""``python -m pyadk.contrib.bench`` (or ``pyadk bench``): run a benchmark, rebuild a
report, list tasks."""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Sequence
from pathlib import Path

from pyadk.contrib.bench import report
from pyadk.contrib.bench.progress import make_progress
from pyadk.contrib.bench.runner import BenchConfig, new_run_id, run_benchmark
from pyadk.contrib.bench.tasks import load_task_set
from pyadk.contrib.bench.worker import generator_spec

MATPLOTLIB_HINT = "plot.png not written: matplotlib is not installed (pip install 'pyadk[bench]')."


def _parser(prog: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=prog,
        description="Benchmarks agent generators on a task set.",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("run", help="run generators on a task set")
    run.add_argument("--tasks", default="starter", help="'starter' or a YAML/JSON task set")
    run.add_argument("--task", action="append", dest="task_ids", help="only this task id")
    run.add_argument("--limit", type=int, help="only the first N tasks")
    run.add_argument(
        "--generator",
        action="append",
        dest="generators",
        help="structured, baseline, module:factory or name=module:factory (repeatable; "
        "default: structured and baseline)",
    )
    run.add_argument("--model", default="local", help="model spec (default: local)")
    run.add_argument("--temperature", type=float, default=0.0)
    run.add_argument("--seed", type=int, default=0)
    run.add_argument("--max-iterations", type=int, default=3)
    run.add_argument(
        "--sandbox-model", help="model spec for the generated agents' test runs (default: --model)"
    )
    run.add_argument("--run-timeout", type=float, default=120.0, help="seconds per test run")
    run.add_argument("--timeout", type=float, default=900.0, help="seconds per task")
    run.add_argument("--verify-timeout", type=float, default=120.0)
    run.add_argument("--concurrency", type=int, default=1)
    run.add_argument("--backend", choices=["local", "ray"], default="local")
    run.add_argument("--ray-address", help="address of a Ray cluster (default: start one)")
    run.add_argument("--out", type=Path, help="output folder (default: bench-results/<run>)")
    run.add_argument("--plain", action="store_true", help="plain lines instead of a live table")
    run.add_argument("--quiet", action="store_true", help="no progress output")
    rebuild = commands.add_parser("report", help="rebuild the reports of a run folder")
    rebuild.add_argument("out", type=Path)
    listing = commands.add_parser("tasks", help="list a task set")
    listing.add_argument("--tasks", default="starter")
    return parser


def _print_summary(out_dir: Path, written: dict[str, Path | None]) -> None:
    rows = report.summary_rows(report.summarize(report.read_results(out_dir)))
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(report.SUMMARY_HEADER)]
    print("  ".join(h.ljust(w) for h, w in zip(report.SUMMARY_HEADER, widths, strict=True)))
    for row in rows:
        print("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)))
    print(f"\nresults: {out_dir / report.RESULTS_FILE}")
    for kind in ("markdown", "html", "plot"):
        if written.get(kind) is not None:
            print(f"{kind}: {written[kind]}")
    if rows and written.get("plot") is None:
        print(MATPLOTLIB_HINT)


def _run(args: argparse.Namespace) -> int:
    task_set = load_task_set(args.tasks).select(args.task_ids, args.limit)
    options = {
        "max_iterations": args.max_iterations,
        "sandbox_model": args.sandbox_model or args.model,
        "run_timeout": args.run_timeout,
    }
    generators = [generator_spec(g, options) for g in args.generators or ["structured", "baseline"]]
    config = BenchConfig(
        task_set=task_set,
        generators=generators,
        out_dir=args.out or Path("bench-results") / new_run_id(),
        model=args.model,
        temperature=args.temperature,
        seed=args.seed,
        timeout=args.timeout,
        verify_timeout=args.verify_timeout,
        concurrency=args.concurrency,
        backend=args.backend,
        ray_address=args.ray_address,
    )
    total = len(task_set.tasks) * len(generators)
    plain = args.plain or not sys.stderr.isatty()
    with make_progress(total, quiet=args.quiet, plain=plain) as progress:
        run = asyncio.run(run_benchmark(config, progress))
    _print_summary(run.out_dir, run.reports)
    return 0


def main(argv: Sequence[str] | None = None, prog: str = "python -m pyadk.contrib.bench") -> int:
    """Runs the benchmark command line; returns the exit status."""
    args = _parser(prog).parse_args(argv)
    try:
        if args.command == "run":
            return _run(args)
        if args.command == "report":
            written = report.write_reports(args.out)
            _print_summary(args.out, written)
            return 0
        for task in load_task_set(args.tasks).tasks:
            check = task.verification.checker or "command"
            print(f"{task.id:22} difficulty {task.difficulty}  {check}")
        return 0
    except (ValueError, ImportError, FileNotFoundError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
