"""Instructions per turn, run, iteration or branch: pyadk beside google-adk, counted by
callgrind.

Wall-clock ratios on a shared machine move with the host (the same build took 850 or
1,500 µs a PoC 6 run, minutes apart); an instruction count does not: the same build,
inputs and ``PYTHONHASHSEED`` count the same whatever else the machine is doing. Each
scenario runs under ``valgrind --tool=callgrind`` twice per framework, at a small and a
larger count of its unit; the difference of the two totals over the difference of the
counts is the cost of one unit, with the interpreter's start, the imports, the set-up and
the first, cold turns cancelled out. Garbage collection stays on: it is part of the cost.

    python benchmarks/instructions.py                  # a_new, b, c, d, e on both sides
    python benchmarks/instructions.py --scenarios c    # one scenario
    python benchmarks/instructions.py --sides pyadk    # no google-adk venv needed

It writes ``results/instructions-<date>.json``; ``docs/performance.md`` shows the newest
such file (``report.py``). An instruction is not a unit of time (a cache miss costs
hundreds of cycles), so these ratios complement the timed ones, they do not replace them.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import run  # benchmarks/run.py: adapters, the google-adk venv, targets


@dataclass(frozen=True)
class Counted:
    """How one scenario is counted: its ``count`` size at ``small`` and ``large``, the
    other sizes fixed, and how many units one step of ``count`` is."""

    unit: str
    count: str
    small: int
    large: int
    sizes: dict[str, int] = field(default_factory=dict)
    units_per_count: int = 1


COUNTED = {
    "a_new": Counted("turn", "turns", 10, 60, {"warmup": 5}),
    "b": Counted("turn", "turns", 10, 60, {"warmup": 5}),
    "c": Counted("run", "runs", 10, 60, {"warmup": 5}),
    "d": Counted("iteration", "iterations", 20, 120, {"runs": 1, "warmup": 0}),
    "e": Counted("branch", "runs", 2, 8, {"branches": 16, "warmup": 1}, units_per_count=16),
}
"""The scenarios counted: those whose cost is the framework's own CPU work (f-j measure
concurrency, SQLite, memory, streaming and imports)."""

TARGETS = {m.scenario: m.target for m in run.METRICS}
_COLLECTED = re.compile(r"Collected\s*:\s*(\d+)")


def count_instructions(
    python: Path, side: str, scenario: str, sizes: dict[str, int], timeout: float
) -> int:
    """The instructions callgrind counts for one run of the scenario's adapter process
    (raises RuntimeError when the scenario's behaviour check fails, the process times
    out or nothing is counted)."""
    cmd = [
        "valgrind",
        "--tool=callgrind",
        "--callgrind-out-file=/dev/null",
        *run.adapter_command(python, side, scenario, sizes),
    ]
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    try:
        proc = subprocess.run(
            cmd, capture_output=True, text=True, timeout=timeout, cwd=run.REPO, env=env, check=False
        )
    except subprocess.TimeoutExpired:
        raise RuntimeError(f"{side} {scenario} {sizes}: timed out after {timeout:g} s") from None
    result = run.result_in(proc.stdout)
    if result is None or not result["check"]["ok"]:
        detail = result["check"]["detail"] if result else f"no result (exit {proc.returncode})"
        raise RuntimeError(f"{side} {scenario} {sizes}: {detail}\n{proc.stderr[-1500:]}")
    collected = _COLLECTED.findall(proc.stderr)
    if not collected:
        raise RuntimeError(f"{side} {scenario}: callgrind counted nothing\n{proc.stderr[-1500:]}")
    return int(collected[-1])


def per_unit(counted: Counted, small_total: int, large_total: int) -> float:
    """Instructions per unit from the two totals."""
    units = (counted.large - counted.small) * counted.units_per_count
    return (large_total - small_total) / units


def measure(counted: Counted, python: Path, side: str, scenario: str, timeout: float) -> dict:
    """Both counts of one scenario on one side (run at the same time, one per core)."""
    sizes = [{**counted.sizes, counted.count: n} for n in (counted.small, counted.large)]
    with ThreadPoolExecutor(max_workers=2) as pool:
        small, large = pool.map(
            lambda s: count_instructions(python, side, scenario, s, timeout), sizes
        )
    return {
        "instructions_per_unit": round(per_unit(counted, small, large)),
        "totals": [small, large],
        "counts": [counted.small, counted.large],
    }


def ratio(entry: dict[str, Any]) -> float | None:
    """google-adk's instructions per unit over pyadk's (None without both)."""
    py, adk = entry.get("pyadk"), entry.get("google-adk")
    if not py or not adk or py["instructions_per_unit"] <= 0:
        return None
    return float(adk["instructions_per_unit"]) / py["instructions_per_unit"]


def table_rows(results: dict[str, Any]) -> list[list[str]]:
    """Rows of: scenario, unit, google-adk, pyadk, ratio, target, met."""
    rows = []
    for scenario, entry in results.items():
        cells = [scenario, f"instructions/{entry['unit']}"]
        for side in ("google-adk", "pyadk"):
            side_entry = entry.get(side)
            cells.append(f"{side_entry['instructions_per_unit'] / 1e6:.3f}M" if side_entry else "-")
        value = entry.get("ratio")
        target = entry["target"]
        cells += [
            "-" if value is None else f"{value:.1f}x",
            f"≥ {target:g}x",
            "-" if value is None else ("yes" if value >= target else "NO"),
        ]
        rows.append(cells)
    return rows


HEADER = ["scenario", "unit", "google-adk", "pyadk", "pyadk fewer by", "target", "met"]


def valgrind_version() -> str | None:
    """``valgrind --version``'s output, or None when valgrind is not installed."""
    if shutil.which("valgrind") is None:
        return None
    out = subprocess.run(["valgrind", "--version"], capture_output=True, text=True, check=False)
    return out.stdout.strip() or None


def newest_results(directory: Path = run.RESULTS) -> Path | None:
    """The newest ``instructions-*.json`` in ``directory`` (by name: dates sort)."""
    found = sorted(directory.glob("instructions-*.json"))
    return found[-1] if found else None


def _counts(spec: str) -> tuple[int, int]:
    try:
        small, large = (int(x) for x in spec.split(","))
    except ValueError:
        raise SystemExit(f"--counts wants SMALL,LARGE (two integers), not {spec!r}") from None
    if not 0 < small < large:
        raise SystemExit(f"--counts wants 0 < SMALL < LARGE, not {spec!r}")
    return small, large


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scenarios", help=f"comma-separated, of {', '.join(COUNTED)}")
    parser.add_argument("--sides", default=",".join(run.SIDES), help="pyadk,google-adk")
    parser.add_argument("--no-install", action="store_true", help="never create the venv")
    parser.add_argument("--adk-python", help="interpreter that has google-adk (skips the venv)")
    parser.add_argument("--output", help="results JSON path")
    parser.add_argument(
        "--counts",
        metavar="SMALL,LARGE",
        help="the two counts of every scenario's unit (a quick check; the defaults are steadier)",
    )
    parser.add_argument("--timeout", type=float, default=1800, help="per process, seconds")
    args = parser.parse_args(argv)
    counts = _counts(args.counts) if args.counts else None

    scenarios = [s.strip() for s in (args.scenarios or ",".join(COUNTED)).split(",") if s]
    unknown = [s for s in scenarios if s not in COUNTED]
    if unknown:
        raise SystemExit(f"unknown scenario {unknown[0]!r}; counted: {', '.join(COUNTED)}")
    sides = [s.strip() for s in args.sides.split(",") if s.strip()]
    for side in sides:
        if side not in run.SIDES:
            raise SystemExit(f"unknown side {side!r}; known: {', '.join(run.SIDES)}")
    valgrind = valgrind_version()
    if valgrind is None:
        raise SystemExit("valgrind is not installed (Debian: apt-get install valgrind)")
    pythons = {"pyadk": Path(sys.executable)}
    if "google-adk" in sides:
        pythons["google-adk"] = (
            Path(args.adk_python) if args.adk_python else run.ensure_adk_venv(not args.no_install)
        )

    results: dict[str, Any] = {}
    for scenario in scenarios:
        counted = COUNTED[scenario]
        if counts is not None:
            counted = replace(counted, small=counts[0], large=counts[1])
        entry: dict[str, Any] = {
            "unit": counted.unit,
            "target": TARGETS[scenario],
            "sizes": counted.sizes,
            "counted": counted.count,  # each side's "counts" are its two values
        }
        for side in sides:
            try:
                entry[side] = measure(counted, pythons[side], side, scenario, args.timeout)
            except RuntimeError as error:
                print(f"FAILED {error}", file=sys.stderr)
                return 1
            print(
                f"{scenario:6} {side:10} {entry[side]['instructions_per_unit']:>12,} "
                f"instructions/{entry['unit']}",
                flush=True,
            )
        entry["ratio"] = ratio(entry)
        results[scenario] = entry

    now = dt.datetime.now()
    report = {
        "date": now.isoformat(timespec="seconds"),
        "command": "python benchmarks/instructions.py " + " ".join(argv or sys.argv[1:]),
        "pyadk_revision": run.git_revision(),
        "valgrind": valgrind,
        "python": sys.version.split()[0],
        "results": results,
    }
    out = (
        Path(args.output)
        if args.output
        else run.RESULTS / f"instructions-{now.date().isoformat()}.json"
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n")
    print()
    run.print_rows(HEADER, table_rows(results))
    print(f"\nResults: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
