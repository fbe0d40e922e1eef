#!/usr/bin/env python3
"""Side-by-side benchmark of pyadk and google-adk, in one run on one machine.

    python benchmarks/run.py                      # full run (~6.5 min idle): results + docs
    python benchmarks/run.py --quick              # smaller sizes, 2 repeats (~1.5 min idle)
    python benchmarks/run.py --scenarios a,b,i    # some scenarios only
    python benchmarks/run.py --sides pyadk        # pyadk alone (no google-adk venv)

It makes ``benchmarks/.venv-adk`` (google-adk 2.13.0, SQLAlchemy, aiosqlite, matplotlib)
on first use, then runs every scenario for both frameworks in separate subprocesses
(pyadk in this interpreter's environment, google-adk in the venv), alternating which goes
first, several repeats. It prints medians, spread and the ratios against the targets of
issue 8, writes ``benchmarks/results/<date>[-quick].json`` and, for a full run, rewrites
``docs/performance.md`` and its plot. Absolute times drift on shared machines: read the
ratios.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
ADAPTERS = HERE / "adapters"
VENV = HERE / ".venv-adk"
RESULTS = HERE / "results"
DOC = REPO / "docs" / "performance.md"
PLOT = REPO / "docs" / "performance-session-length.png"
ADK_VERSION = "2.13.0"
ADK_REQUIREMENTS = [f"google-adk=={ADK_VERSION}", "sqlalchemy[asyncio]", "aiosqlite", "matplotlib"]
SIDES = ("pyadk", "google-adk")
ADAPTER = {"pyadk": ADAPTERS / "pyadk_side.py", "google-adk": ADAPTERS / "adk_side.py"}

SCENARIOS = ["a_new", "a_reused", "b", "c", "d", "e", "f", "g", "h", "i", "j"]
ALIASES = {"a": ["a_new", "a_reused"]}
DESCRIPTIONS = {
    "a_new": "one LlmAgent turn, text answer, new session per turn",
    "a_reused": "one session reused for 2,000 turns: cost per turn vs earlier turns",
    "b": "a turn with one function tool call, then the answer",
    "c": "PoC 6: Sequential[A,B,C,D], A fails via tool + output_key, B/C skipped by "
    "callback, D templated from state",
    "d": "LoopAgent, 100 iterations, exit via exit_loop",
    "e": "ParallelAgent fan-out to 16 LlmAgents",
    "f": "1,000 concurrent sessions, one turn each",
    "g": "persistent sessions on SQLite: new session per turn, and one session",
    "h": "RSS growth after 10,000 turns in 1,000 sessions",
    "i": "SSE streaming, 200 chunks per answer",
    "j": "fresh-process import of LlmAgent and InMemoryRunner",
}
SIZES: dict[str, dict[str, dict[str, Any]]] = {
    "full": {
        "a_new": {"turns": 300},
        "a_reused": {"checkpoints": "0,250,500,1000,2000", "per_checkpoint": 8},
        "b": {"turns": 200},
        "c": {"runs": 200},
        "d": {"runs": 5, "iterations": 100},
        "e": {"runs": 30, "branches": 16},
        "f": {"sessions": 1000},
        "g": {"new_turns": 100, "same_turns": 50},
        "h": {"sessions": 1000, "turns_per_session": 10},
        "i": {"turns": 30, "chunks": 200},
        "j": {"processes": 7, "min_seconds": 10},
    },
    "quick": {
        "a_new": {"turns": 100},
        "a_reused": {"checkpoints": "0,100,250,500", "per_checkpoint": 4},
        "b": {"turns": 60},
        "c": {"runs": 60},
        "d": {"runs": 2, "iterations": 100},
        "e": {"runs": 10, "branches": 16},
        "f": {"sessions": 300},
        "g": {"new_turns": 30, "same_turns": 20},
        "h": {"sessions": 200, "turns_per_session": 10},
        "i": {"turns": 10, "chunks": 200},
        "j": {"processes": 3},
    },
}
REPEATS = {"full": 5, "quick": 2}
REPEATS_OF = {"full": {"c": 9, "e": 9, "i": 9, "j": 9, "h": 3}, "quick": {}}
"""Scenarios repeated more or less often than the mode's default: pyadk's side of c, e,
i and j runs for under a second, so a passing load on the shared host moves one repeat
most (more pairs make their median steadier); h takes ~30 s a run on google-adk."""
MAX_REPEATS = {"h": 3}
"""Caps that ``--repeats`` keeps."""


@dataclass(frozen=True)
class Metric:
    scenario: str
    key: str
    label: str
    unit: str
    better: str  # "lower" or "higher"
    target: float  # pyadk must be this many times better
    scale: float = 1.0  # shown value = raw * scale


METRICS = [
    Metric("a_new", "us_per_turn", "a. turn, new session", "µs/turn", "lower", 10),
    Metric(
        "a_reused", "us_per_earlier_turn", "a. reused session, per earlier turn", "µs", "lower", 50
    ),
    Metric("b", "us_per_turn", "b. turn with a tool call", "µs/turn", "lower", 10),
    Metric("c", "us_per_run", "c. PoC 6 sequence", "µs/run", "lower", 10),
    Metric("d", "us_per_iteration", "d. LoopAgent x100", "µs/iteration", "lower", 10),
    Metric("e", "us_per_branch", "e. ParallelAgent x16", "µs/branch", "lower", 10),
    Metric("f", "turns_per_s", "f. 1,000 concurrent sessions", "turns/s", "higher", 10),
    Metric("g", "new_turns_per_s", "g. SQLite, new session", "turns/s", "higher", 10),
    Metric("g", "same_turns_per_s", "g. SQLite, same session", "turns/s", "higher", 10),
    Metric("h", "bytes_per_turn", "h. memory per turn", "KiB/turn", "lower", 5, 1 / 1024),
    Metric("i", "us_per_chunk", "i. SSE overhead per chunk", "µs/chunk", "lower", 20),
    Metric("j", "import_ms", "j. import time", "ms", "lower", 4),
    Metric("j", "rss_mib", "j. RSS after import", "MiB", "lower", 2),
]


# --------------------------------------------------------------------------------------
# Environments
# --------------------------------------------------------------------------------------
def _venv_python() -> Path:
    return VENV / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


_VENV_PROBE = (
    "import importlib.metadata as m, sqlalchemy, aiosqlite, matplotlib;"
    f"assert m.version('google-adk') == {ADK_VERSION!r}, m.version('google-adk')"
)


def ensure_adk_venv(install: bool) -> Path:
    """The google-adk interpreter: the venv, made and filled on first use."""
    python = _venv_python()
    if python.exists():
        probe = subprocess.run([python, "-c", _VENV_PROBE], capture_output=True, check=False)
        if probe.returncode == 0:
            return python
    if not install:
        raise SystemExit(f"{VENV} is missing or incomplete; run without --no-install.")
    print(f"Preparing {VENV.relative_to(REPO)}: {' '.join(ADK_REQUIREMENTS)}", flush=True)
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
    subprocess.run(
        [
            python,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            *ADK_REQUIREMENTS,
        ],
        check=True,
    )
    return python


def machine() -> dict[str, Any]:
    """What the numbers were measured on."""
    info: dict[str, Any] = {
        "cpu": platform.processor() or platform.machine(),
        "cores": os.cpu_count(),
        "os": platform.platform(),
        "python": platform.python_version(),
    }
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                info["cpu"] = line.split(":", 1)[1].strip()
                break
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                info["memory_gib"] = round(int(line.split()[1]) / 2**20, 1)
    except OSError:
        pass
    db_dir = os.environ.get("BENCH_DB_DIR") or (
        "/dev/shm" if os.access("/dev/shm", os.W_OK) else "/tmp"
    )
    info["sqlite_dir"] = f"{db_dir} ({_fs_type(db_dir)})"
    return info


def _fs_type(path: str) -> str:
    best, kind = "", "unknown"
    try:
        for line in Path("/proc/mounts").read_text().splitlines():
            _, mount, fstype, *_ = line.split()
            if path.startswith(mount) and len(mount) > len(best):
                best, kind = mount, fstype
    except OSError:
        pass
    return kind


def git_revision() -> str:
    try:
        rev = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=REPO,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--", "src"],
            cwd=REPO,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return rev + ("+uncommitted src changes" if dirty else "")


# --------------------------------------------------------------------------------------
# Running
# --------------------------------------------------------------------------------------
_RESULT_PREFIX = "BENCH_RESULT "


def adapter_command(python: Path, side: str, scenario: str, sizes: dict[str, Any]) -> list[str]:
    """The command that runs one scenario on one side (its adapter script)."""
    cmd = [str(python), str(ADAPTER[side]), "--scenario", scenario]
    for key, value in sizes.items():
        cmd += ["--size", f"{key}={value}"]
    return cmd


def result_in(stdout: str) -> dict[str, Any] | None:
    """The adapter's BENCH_RESULT (its last one) in ``stdout``, or None."""
    for line in reversed(stdout.splitlines()):
        if line.startswith(_RESULT_PREFIX):
            result: dict[str, Any] = json.loads(line.removeprefix(_RESULT_PREFIX))
            return result
    return None


def run_one(
    python: Path, side: str, scenario: str, sizes: dict[str, Any], timeout: float
) -> dict[str, Any]:
    """One scenario on one side in a fresh subprocess; its BENCH_RESULT, or a failure."""
    cmd = adapter_command(python, side, scenario, sizes)
    start = time.perf_counter()
    try:
        proc = subprocess.run(
            cmd, capture_output=True, text=True, timeout=timeout, cwd=REPO, check=False
        )
    except subprocess.TimeoutExpired:
        return {
            "side": side,
            "scenario": scenario,
            "metrics": {},
            "check": {"ok": False, "detail": f"timed out after {timeout:.0f} s"},
        }
    result = result_in(proc.stdout)
    if result is not None:
        result["wall_s"] = time.perf_counter() - start
        if not result["check"]["ok"]:
            result["stderr"] = proc.stderr[-2000:]
        return result
    return {
        "side": side,
        "scenario": scenario,
        "metrics": {},
        "check": {"ok": False, "detail": f"no result (exit {proc.returncode})"},
        "stderr": proc.stderr[-2000:],
    }


def repeats_of(scenario: str, mode: str, explicit: int | None = None) -> int:
    """How many times ``scenario`` runs on each side: ``explicit`` (``--repeats``, h still
    capped), else the mode's count for it."""
    if explicit:
        return min(explicit, MAX_REPEATS.get(scenario, explicit))
    return REPEATS_OF[mode].get(scenario, REPEATS[mode])


def stats(values: list[float]) -> dict[str, Any]:
    med = statistics.median(values)
    return {
        "median": _round(med),
        "min": _round(min(values)),
        "max": _round(max(values)),
        "spread_pct": _round((max(values) - min(values)) / abs(med) * 100) if med else None,
        "values": [_round(v) for v in values],
    }


def _round(value: float) -> float:
    return float(f"{value:.4g}")


def aggregate(runs: dict[str, dict[str, list[dict[str, Any]]]]) -> dict[str, Any]:
    """Per scenario and side: metric stats over repeats, checks, notes, series."""
    out: dict[str, Any] = {}
    for scenario, by_side in runs.items():
        out[scenario] = {}
        for side, results in by_side.items():
            entry: dict[str, Any] = {
                "check_ok": all(r["check"]["ok"] for r in results),
                "check": next(
                    (r["check"]["detail"] for r in results if not r["check"]["ok"]),
                    results[-1]["check"]["detail"],
                ),
            }
            skipped = [r["skipped"] for r in results if r.get("skipped")]
            if skipped:
                entry["skipped"] = skipped[0]
            if results[-1].get("version"):
                entry["version"] = results[-1]["version"]
            if results[-1].get("notes"):
                entry["notes"] = results[-1]["notes"]
            keys = sorted({k for r in results for k in r.get("metrics", {})})
            entry["metrics"] = {
                k: stats([r["metrics"][k] for r in results if k in r.get("metrics", {})])
                for k in keys
            }
            series = [r["series"] for r in results if r.get("series")]
            if series:
                name = next(iter(series[0]))
                points = [p[0] for p in series[0][name]]
                entry["series"] = {
                    name: [
                        [x, _round(statistics.median(s[name][i][1] for s in series))]
                        for i, x in enumerate(points)
                    ]
                }
            out[scenario][side] = entry
    return out


def ratios(summary: dict[str, Any]) -> list[dict[str, Any]]:
    """The headline table: google-adk vs pyadk medians, pyadk's advantage vs the target.

    ``advantage`` is how many times better pyadk is: google-adk/pyadk for times and
    memory, pyadk/google-adk for throughputs. With one result per repeat on both sides it
    is the median of the per-repeat ratios (the two sides of a repeat ran back to back, so
    they saw the same machine load); ``advantage_min``/``max`` give their range. A
    lower-is-better pyadk value of zero or less (e.g. no measurable growth per earlier
    turn) counts as unbounded: ``advantage`` is None and ``unbounded`` True.
    """
    rows = []
    for m in METRICS:
        if m.scenario not in summary:
            continue
        sides = summary[m.scenario]
        found = {s: sides.get(s, {}).get("metrics", {}).get(m.key) for s in SIDES}
        py = found["pyadk"]["median"] if found["pyadk"] else None
        adk = found["google-adk"]["median"] if found["google-adk"] else None
        pairs: list[float] = []
        if found["pyadk"] and found["google-adk"]:
            p_values, a_values = found["pyadk"]["values"], found["google-adk"]["values"]
            if len(p_values) != len(a_values):  # a failed repeat: compare the medians
                p_values, a_values = [py], [adk]
            pairs = [_advantage(p, a, m.better) for p, a in zip(p_values, a_values, strict=True)]
        pairs = [r for r in pairs if r is not None]
        advantage = statistics.median(pairs) if pairs else None
        unbounded = advantage == math.inf
        row = {
            "metric": f"{m.scenario}.{m.key}",
            "label": m.label,
            "unit": m.unit,
            "better": m.better,
            "pyadk": py,
            "google-adk": adk,
            "scale": m.scale,
            "advantage": None if advantage is None or unbounded else _round(advantage),
            "advantage_min": _finite(min(pairs)) if pairs else None,
            "advantage_max": _finite(max(pairs)) if pairs else None,
            "unbounded": unbounded,
            "target": m.target,
            "meets": None if advantage is None else advantage >= m.target,
        }
        rows.append(row)
    return rows


def _advantage(py: float, adk: float, better: str) -> float | None:
    if adk <= 0:
        return None
    if better == "lower":
        return math.inf if py <= 0 else adk / py
    return None if py <= 0 else py / adk


def _finite(value: float) -> float | None:
    return None if value == math.inf else _round(value)


def _fmt(value: float | None, scale: float = 1.0) -> str:
    if value is None:
        return "-"
    v = value * scale
    if abs(v) >= 100:
        return f"{v:,.0f}"
    if abs(v) >= 10:
        return f"{v:.1f}"
    return f"{v:.2f}"


def table_rows(rows: list[dict[str, Any]]) -> list[list[str]]:
    out = []
    for r in rows:
        adv = r["advantage"]
        verdict = "-" if r["meets"] is None else ("yes" if r["meets"] else "NO")
        if r.get("unbounded"):
            shown = "no growth"
        elif adv is None:
            shown = "-"
        else:
            shown = f"{adv:.1f}x"
            low, high = r.get("advantage_min"), r.get("advantage_max")
            if low is not None and high is not None and low != high:
                shown += f" ({low:.1f}-{high:.1f})"
            elif low is not None and high is None:
                shown += f" ({low:.1f}-)"
        out.append(
            [
                r["label"],
                r["unit"],
                _fmt(r["google-adk"], r["scale"]),
                _fmt(r["pyadk"], r["scale"]),
                shown,
                f"≥ {r['target']:g}x",
                verdict,
            ]
        )
    return out


HEADER = ["scenario", "unit", "google-adk", "pyadk", "pyadk better by (range)", "target", "met"]


def print_table(rows: list[dict[str, Any]]) -> None:
    print_rows(HEADER, table_rows(rows))


def print_rows(header: list[str], body: list[list[str]]) -> None:
    """A plain-text table: ``header``, a rule, then ``body``, columns padded."""
    widths = [max(len(str(x)) for x in col) for col in zip(header, *body, strict=True)]
    for line in [header, ["-" * w for w in widths], *body]:
        print("  ".join(str(c).ljust(w) for c, w in zip(line, widths, strict=True)))


def select(spec: str | None) -> list[str]:
    if not spec:
        return list(SCENARIOS)
    chosen: list[str] = []
    for name in (s.strip() for s in spec.split(",") if s.strip()):
        names = ALIASES.get(name, [name])
        for n in names:
            if n not in SCENARIOS:
                raise SystemExit(f"unknown scenario {name!r}; known: a, {', '.join(SCENARIOS)}")
            if n not in chosen:
                chosen.append(n)
    return chosen


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes, 2 repeats")
    parser.add_argument("--scenarios", help="comma-separated: a (= a_new,a_reused), b, ..., j")
    parser.add_argument("--repeats", type=int, help="repeats per scenario and side")
    parser.add_argument("--sides", default=",".join(SIDES), help="pyadk,google-adk")
    parser.add_argument("--no-install", action="store_true", help="never create the venv")
    parser.add_argument("--adk-python", help="interpreter that has google-adk (skips the venv)")
    parser.add_argument("--db-dir", help="where scenario g puts its SQLite files")
    parser.add_argument("--output", help="results JSON path")
    docs = parser.add_mutually_exclusive_group()
    docs.add_argument(
        "--docs",
        dest="docs",
        action="store_true",
        default=None,
        help="rewrite docs/performance.md and its plot",
    )
    docs.add_argument("--no-docs", dest="docs", action="store_false")
    parser.add_argument("--timeout", type=float, default=900, help="per subprocess, seconds")
    args = parser.parse_args(argv)

    mode = "quick" if args.quick else "full"
    scenarios = select(args.scenarios)
    sides = [s.strip() for s in args.sides.split(",") if s.strip()]
    for s in sides:
        if s not in SIDES:
            raise SystemExit(f"unknown side {s!r}; known: {', '.join(SIDES)}")
    if args.db_dir:
        os.environ["BENCH_DB_DIR"] = args.db_dir
    pythons = {"pyadk": Path(sys.executable)}
    if "google-adk" in sides:
        pythons["google-adk"] = (
            Path(args.adk_python) if args.adk_python else ensure_adk_venv(not args.no_install)
        )
    repeats = args.repeats or REPEATS[mode]
    counts = {s: repeats_of(s, mode, args.repeats) for s in scenarios}
    sizes = {s: SIZES[mode][s] for s in scenarios}
    started = time.perf_counter()
    load_before = _load_average()
    runs: dict[str, dict[str, list[dict[str, Any]]]] = {
        s: {x: [] for x in sides} for s in scenarios
    }
    for rep in range(max(counts.values())):
        for index, scenario in enumerate(scenarios):
            if rep >= counts[scenario]:
                continue
            order = sides if (rep + index) % 2 == 0 else list(reversed(sides))
            for side in order:
                result = run_one(pythons[side], side, scenario, sizes[scenario], args.timeout)
                runs[scenario][side].append(result)
                _progress(rep, counts[scenario], scenario, side, result)

    summary = aggregate(runs)
    rows = ratios(summary)
    failed = [
        f"{sc}/{side}: {entry['check']}"
        for sc, by in summary.items()
        for side, entry in by.items()
        if not entry["check_ok"]
    ]
    now = dt.datetime.now()
    report = {
        "date": now.isoformat(timespec="seconds"),
        "mode": mode,
        "repeats": repeats,
        "repeats_of": {s: n for s, n in counts.items() if n != repeats},
        "command": "python benchmarks/run.py " + " ".join(argv or sys.argv[1:]),
        "elapsed_s": round(time.perf_counter() - started, 1),
        "machine": {**machine(), "load_average": [load_before, _load_average()]},
        "pyadk_revision": git_revision(),
        "versions": {side: _version(summary, side) for side in sides},
        "sizes": sizes,
        "all_checks_passed": not failed,
        "failed_checks": failed,
        "ratios": rows,
        "results": summary,
    }
    out = Path(args.output) if args.output else RESULTS / _result_name(now, mode, scenarios)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n")
    print()
    print_table(rows)
    print(
        f"\nResults: {out.relative_to(REPO) if out.is_relative_to(REPO) else out}"
        f" ({report['elapsed_s']:.0f} s)"
    )
    write_docs = (
        args.docs
        if args.docs is not None
        else (mode == "full" and scenarios == SCENARIOS and len(sides) == 2)
    )
    if write_docs:
        import report as report_module  # benchmarks/report.py

        report_module.write(report, out, DOC, PLOT, pythons.get("google-adk"))
        print(f"Docs: {DOC.relative_to(REPO)}, {PLOT.relative_to(REPO)}")
    for line in failed:
        print(f"CHECK FAILED {line}")
    return 1 if failed else 0


def _load_average() -> float | None:
    """The 1-minute load average (other work on the machine skews absolute times)."""
    try:
        return round(os.getloadavg()[0], 2)
    except (AttributeError, OSError):
        return None


def _version(summary: dict[str, Any], side: str) -> str | None:
    for entry in summary.values():
        if entry.get(side, {}).get("version"):
            return entry[side]["version"]
    return None


def _result_name(now: dt.datetime, mode: str, scenarios: list[str]) -> str:
    name = now.strftime("%Y-%m-%d")
    if mode == "quick":
        name += "-quick"
    if scenarios != SCENARIOS:
        name += "-" + "_".join(scenarios)
    return name + ".json"


def _progress(rep: int, repeats: int, scenario: str, side: str, result: dict[str, Any]) -> None:
    if result.get("skipped"):
        what = f"skipped: {result['skipped']}"
    elif not result["check"]["ok"]:
        what = f"CHECK FAILED: {result['check']['detail']}"
    else:
        what = ", ".join(f"{k}={_fmt(v)}" for k, v in result["metrics"].items() if "." not in k)
    wall = result.get("wall_s")
    took = f" [{wall:.1f} s]" if wall else ""
    print(f"[{rep + 1}/{repeats}] {scenario:<8} {side:<10} {what}{took}", flush=True)


if __name__ == "__main__":
    sys.path.insert(0, str(HERE))
    sys.exit(main())
