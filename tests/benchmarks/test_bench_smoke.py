"""The benchmark suite's pyadk side: every scenario runs at tiny sizes and its behaviour
check passes; a model that answers wrongly makes the checks fail; the runner computes
ratios the right way round. No google-adk and no timing asserts."""

from __future__ import annotations

import dataclasses
import importlib.util
import math
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCH / "adapters"))

import bench_common  # noqa: E402
import pyadk_side  # noqa: E402


def _load(name: str):
    spec = importlib.util.spec_from_file_location(f"bench_{name}", BENCH / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    sys.path.insert(0, str(BENCH))  # report.py imports run
    spec.loader.exec_module(module)
    return module


run = _load("run")
report = _load("report")

TINY = {
    "a_new": {"turns": 3, "warmup": 1},
    "a_reused": {"checkpoints": "0,3", "per_checkpoint": 2},
    "b": {"turns": 2, "warmup": 1},
    "c": {"runs": 2, "warmup": 1},
    "d": {"runs": 1, "iterations": 5, "warmup": 0},
    "e": {"runs": 1, "branches": 4, "warmup": 0},
    "f": {"sessions": 8, "warmup": 2},
    "g": {"new_turns": 2, "same_turns": 2},
    "h": {"sessions": 3, "turns_per_session": 2, "warmup": 1},
    "i": {"turns": 1, "chunks": 5, "warmup": 0},
    "j": {"processes": 1},
}


def test_every_scenario_has_tiny_sizes_and_a_headline_metric():
    assert set(TINY) == set(bench_common.scenarios()) == set(run.SCENARIOS)
    assert {m.scenario for m in run.METRICS} == set(run.SCENARIOS)
    for mode in ("full", "quick"):
        assert set(run.SIZES[mode]) == set(run.SCENARIOS)


@pytest.mark.parametrize("scenario", sorted(TINY))
async def test_pyadk_scenario_behaves(scenario, monkeypatch, tmp_path):
    monkeypatch.setenv("BENCH_DB_DIR", str(tmp_path))
    result = await bench_common.run_scenario(pyadk_side.SIDE, scenario, TINY[scenario])
    if result.get("skipped"):
        pytest.skip(result["skipped"])
    assert result["check"]["ok"], result["check"]["detail"]
    assert result["side"] == "pyadk"
    for metric in (m for m in run.METRICS if m.scenario == scenario):
        value = result["metrics"][metric.key]
        assert isinstance(value, float) and math.isfinite(value), (metric.key, value)


async def test_reused_session_reports_cost_per_checkpoint():
    result = await bench_common.run_scenario(pyadk_side.SIDE, "a_reused", TINY["a_reused"])
    series = result["series"]["earlier_turns_vs_us_per_turn"]
    assert [point for point, _ in series] == [0, 3]
    assert all(us > 0 for _, us in series)
    assert result["check"]["detail"].startswith("5 turns in one session")


class _WrongAnswers(bench_common.Side):
    """pyadk, but every text answer is wrong and streams lose their last chunk."""

    def model(self, reply, **kw):
        def wrong(info):
            answer = reply(info)
            if isinstance(answer, bench_common.Text):
                return bench_common.Text("a fast wrong answer")
            if isinstance(answer, bench_common.Streamed):
                return bench_common.Streamed(answer.chunks[:-1])
            return answer

        return super().model(wrong, **kw)


WRONG = _WrongAnswers(
    **{
        f.name: getattr(pyadk_side.SIDE, f.name)
        for f in dataclasses.fields(bench_common.Side)
        if f.init
    }
)


@pytest.mark.parametrize("scenario", sorted(set(TINY) - {"j"}))
async def test_a_wrong_answer_fails_the_check(scenario, monkeypatch, tmp_path):
    monkeypatch.setenv("BENCH_DB_DIR", str(tmp_path))
    result = await bench_common.run_scenario(WRONG, scenario, TINY[scenario])
    if result.get("skipped"):
        pytest.skip(result["skipped"])
    assert not result["check"]["ok"]
    assert result["metrics"] == {}


async def test_a_tool_that_does_not_run_fails_the_check():
    class NoTools(bench_common.Side):
        def model(self, reply, **kw):
            # Answers as if the tool had run, without calling it.
            return super().model(
                lambda info: bench_common.Text("It is sunny in Paris, 21 C."), **kw
            )

    side = NoTools(**{f.name: getattr(WRONG, f.name) for f in dataclasses.fields(WRONG) if f.init})
    result = await bench_common.run_scenario(side, "b", TINY["b"])
    assert not result["check"]["ok"]
    assert "tool ran 0x" in result["check"]["detail"]


def test_missing_sqlite_backend_skips_scenario_g():
    side = dataclasses.replace(
        pyadk_side.SIDE, sqlite_backends={}, sqlite_skip_reason="no SQLite here"
    )
    import asyncio

    result = asyncio.run(bench_common.run_scenario(side, "g", TINY["g"]))
    assert result["skipped"] == "no SQLite here"
    assert result["check"]["ok"] and result["metrics"] == {}


def test_adapter_prints_one_result_line(capsys):
    code = bench_common.main(
        pyadk_side.SIDE, ["--scenario", "a_new", "--size", "turns=2", "--size", "warmup=0"]
    )
    out = capsys.readouterr().out.strip().splitlines()
    assert code == 0
    assert len(out) == 1 and out[0].startswith(bench_common.RESULT_PREFIX)
    assert '"sizes": {"turns": 2, "warmup": 0}' in out[0]


# -- the runner's arithmetic ------------------------------------------------------------------


def _result(side, scenario, metrics, ok=True):
    return {
        "side": side,
        "scenario": scenario,
        "version": "1",
        "metrics": metrics,
        "check": {"ok": ok, "detail": "fine" if ok else "wrong answer"},
    }


def test_ratios_are_pyadk_advantage_for_times_and_throughputs():
    runs = {
        "a_new": {
            "pyadk": [_result("pyadk", "a_new", {"us_per_turn": v}) for v in (100, 120, 90)],
            "google-adk": [
                _result("google-adk", "a_new", {"us_per_turn": v}) for v in (2000, 2400, 1900)
            ],
        },
        "f": {
            "pyadk": [_result("pyadk", "f", {"turns_per_s": 2000.0})],
            "google-adk": [_result("google-adk", "f", {"turns_per_s": 400.0})],
        },
    }
    summary = run.aggregate(runs)
    stats = summary["a_new"]["pyadk"]["metrics"]["us_per_turn"]
    assert (stats["median"], stats["min"], stats["max"]) == (100, 90, 120)
    assert stats["spread_pct"] == 30
    rows = {r["metric"]: r for r in run.ratios(summary)}
    assert set(rows) == {"a_new.us_per_turn", "f.turns_per_s"}  # only scenarios that ran
    # Lower is better: google-adk / pyadk per repeat (20, 20, 21.1), then the median.
    assert rows["a_new.us_per_turn"]["advantage"] == 20
    assert rows["a_new.us_per_turn"]["advantage_max"] == 21.11
    assert rows["a_new.us_per_turn"]["meets"] is True  # target 10x
    assert rows["f.turns_per_s"]["advantage"] == 5  # 2000 / 400: higher is better
    assert rows["f.turns_per_s"]["meets"] is False  # target 10x


def test_no_measurable_growth_counts_as_unbounded_advantage():
    runs = {
        "a_reused": {
            "pyadk": [
                _result("pyadk", "a_reused", {"us_per_earlier_turn": v}) for v in (-0.2, 0.5)
            ],
            "google-adk": [
                _result("google-adk", "a_reused", {"us_per_earlier_turn": v}) for v in (150, 200)
            ],
        }
    }
    (row,) = run.ratios(run.aggregate(runs))
    assert row["unbounded"] is True and row["advantage"] is None
    assert row["meets"] is True
    assert run.table_rows([row])[0][4] == "no growth"


def test_a_failed_check_in_any_repeat_marks_the_side_failed():
    runs = {
        "b": {
            "pyadk": [
                _result("pyadk", "b", {"us_per_turn": 1.0}),
                _result("pyadk", "b", {}, ok=False),
            ]
        }
    }
    entry = run.aggregate(runs)["b"]["pyadk"]
    assert entry["check_ok"] is False
    assert entry["check"] == "wrong answer"


def test_short_scenarios_repeat_more_in_full_mode_and_h_stays_capped():
    assert run.repeats_of("c", "full") == 9
    assert run.repeats_of("b", "full") == 5
    assert run.repeats_of("h", "full") == 3
    assert run.repeats_of("c", "quick") == 2
    assert run.repeats_of("c", "full", explicit=4) == 4
    assert run.repeats_of("h", "full", explicit=7) == 3


def test_scenario_selection():
    assert run.select("a,c") == ["a_new", "a_reused", "c"]
    assert run.select(None) == run.SCENARIOS
    with pytest.raises(SystemExit, match="unknown scenario 'z'"):
        run.select("b,z")


def test_report_page_has_the_table_and_plot_and_no_python_blocks():
    runs = {
        "a_new": {
            s: [_result(s, "a_new", {"us_per_turn": v})]
            for s, v in (("pyadk", 100.0), ("google-adk", 2500.0))
        }
    }
    summary = run.aggregate(runs)
    page = report.render(
        {
            "date": "2025-01-01T00:00:00",
            "mode": "full",
            "repeats": 1,
            "elapsed_s": 60,
            "versions": {"pyadk": "0.1.0", "google-adk": "2.13.0"},
            "pyadk_revision": "abc",
            "all_checks_passed": True,
            "failed_checks": [],
            "ratios": run.ratios(summary),
            "results": summary,
            "sizes": {"a_new": {"turns": 1}},
            "machine": {"cpu": "x", "cores": 2},
        },
        "benchmarks/results/x.json",
        "plot.png",
    )
    assert (
        "| a. turn, new session | µs/turn | 2,500 (0%) | 100 (0%) | 25.0x | ≥ 10x | yes |" in page
    )
    assert "![Per-turn cost vs session length, pyadk and google-adk](plot.png)" in page
    assert "```python" not in page  # tests/docs runs python blocks of docs pages


def test_breakdown_times_pyadk_parts_per_turn():
    """benchmarks/breakdown.py runs a scenario twice and reports the second run's parts
    per turn: PoC 6 stores 8 events through append_event (the user's goes in with the
    lease claim), encodes all 9, and makes one tool call."""
    done = subprocess.run(
        [sys.executable, str(BENCH / "breakdown.py"), "--scenario", "c", "--size", "runs=3"],
        capture_output=True,
        encoding="utf-8",
        env={**os.environ, "PYTHONIOENCODING": "utf-8"},
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    rows = {
        match[1]: (float(match[2]), float(match[3]))
        for match in re.finditer(r"^\s*(.+?)\s{2,}([\d.]+) µs\s+([\d.]+) calls$", done.stdout, re.M)
    }
    assert "per turn (13 turns):" in done.stdout  # 3 runs + 10 warm-up turns
    assert rows["append_event"][1] == 8.0
    assert rows["encode (inside append)"][1] == 9.0
    assert rows["function calls"][1] == 1.0
    assert all(spent > 0 for spent, _ in rows.values())
