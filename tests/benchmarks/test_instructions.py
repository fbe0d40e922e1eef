"""benchmarks/instructions.py: instructions per unit from two callgrind totals, the
ratio and table, the section it adds to docs/performance.md, and a real count of PoC 6
on pyadk under valgrind (skipped where valgrind is not installed)."""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, BENCH / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    sys.path.insert(0, str(BENCH))
    spec.loader.exec_module(module)
    return module


instructions = _load("instructions")
report = _load("report")

needs_valgrind = pytest.mark.skipif(shutil.which("valgrind") is None, reason="no valgrind")


def _entry(py: int | None, adk: int | None, unit: str = "run", target: float = 10) -> dict:
    entry: dict = {"unit": unit, "target": target}
    for side, value in (("pyadk", py), ("google-adk", adk)):
        if value is not None:
            entry[side] = {"instructions_per_unit": value}
    entry["ratio"] = instructions.ratio(entry)
    return entry


def test_cost_of_one_unit_is_the_difference_of_the_totals_over_the_units():
    c = instructions.COUNTED["c"]
    assert instructions.per_unit(c, 1_000_000, 1_000_000 + 50 * 3_000) == 3_000
    e = instructions.COUNTED["e"]  # a run is 16 branches
    assert e.units_per_count == 16
    assert instructions.per_unit(e, 0, 6 * 16 * 500) == 500


def test_counted_scenarios_have_targets_and_two_increasing_counts():
    assert set(instructions.COUNTED) == {"a_new", "b", "c", "d", "e"}
    for name, counted in instructions.COUNTED.items():
        assert 0 < counted.small < counted.large, name
        assert counted.count not in counted.sizes, name
        assert instructions.TARGETS[name] == 10


def test_ratio_and_table_rows_say_whether_the_target_is_met():
    rows = instructions.table_rows(
        {"c": _entry(3_000_000, 27_000_000), "b": _entry(2_000_000, 30_000_000, "turn")}
    )
    assert rows == [
        ["c", "instructions/run", "27.000M", "3.000M", "9.0x", "≥ 10x", "NO"],
        ["b", "instructions/turn", "30.000M", "2.000M", "15.0x", "≥ 10x", "yes"],
    ]
    lone = _entry(3_000_000, None)  # pyadk counted alone
    assert lone["ratio"] is None
    assert instructions.table_rows({"c": lone})[0][2:] == ["-", "3.000M", "-", "≥ 10x", "-"]


def test_newest_results_file_is_picked_by_date(tmp_path):
    assert instructions.newest_results(tmp_path) is None
    for name in ("instructions-2026-11-30.json", "instructions-2026-12-01.json", "x.json"):
        (tmp_path / name).write_text("{}")
    assert instructions.newest_results(tmp_path).name == "instructions-2026-12-01.json"


def test_report_section_shows_the_counts_with_their_revision():
    section = report.instructions_section(
        {
            "date": "2026-12-01T20:10:00",
            "pyadk_revision": "abc123",
            "python": "3.11.7",
            "results": {"c": _entry(3_210_000, 26_840_000)},
        }
    )
    assert section.startswith("## Instructions per unit (callgrind)")
    assert "Counted 2026-12-01 20:10, pyadk at `abc123`, Python 3.11.7" in section
    assert "| c | instructions/run | 26.840M | 3.210M | 8.4x | ≥ 10x | **no** |" in section


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--scenarios", "f"], "unknown scenario 'f'"),
        (["--sides", "langchain"], "unknown side 'langchain'"),
        (["--counts", "5"], "--counts wants SMALL,LARGE"),
        (["--counts", "6,6"], "0 < SMALL < LARGE"),
    ],
)
def test_bad_arguments_are_refused(argv, message):
    with pytest.raises(SystemExit, match=message):
        instructions.main(["--sides", "pyadk", *argv])


def test_without_valgrind_it_says_how_to_get_it(monkeypatch):
    monkeypatch.setattr(instructions.shutil, "which", lambda name: None)
    with pytest.raises(SystemExit, match="valgrind is not installed"):
        instructions.main(["--sides", "pyadk", "--scenarios", "c"])


@needs_valgrind
def test_a_process_without_a_passing_result_is_an_error():
    with pytest.raises(RuntimeError, match=r"no result \(exit 1\)"):
        instructions.count_instructions(Path("/bin/false"), "pyadk", "c", {"runs": 1}, 60)


@needs_valgrind
def test_counts_poc6_on_pyadk(tmp_path):
    """A real count: PoC 6 on pyadk at 2 and 4 runs, both processes under callgrind."""
    out = tmp_path / "counted.json"
    done = subprocess.run(
        [
            sys.executable,
            str(BENCH / "instructions.py"),
            *("--sides", "pyadk", "--scenarios", "c", "--counts", "2,4", "--output", str(out)),
        ],
        capture_output=True,
        encoding="utf-8",
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    counted = json.loads(out.read_text(encoding="utf-8"))
    entry = counted["results"]["c"]
    assert entry["counted"] == "runs" and entry["pyadk"]["counts"] == [2, 4]
    small, large = entry["pyadk"]["totals"]
    assert 0 < small < large
    assert entry["pyadk"]["instructions_per_unit"] == round((large - small) / 2)
    assert entry["ratio"] is None  # google-adk was not counted
    assert "instructions/run" in done.stdout


def test_a_failed_count_ends_the_run_with_its_reason(monkeypatch, tmp_path, capsys):
    def failing(*args):
        raise RuntimeError("pyadk c {'runs': 10}: D answered 'unexpected outcomes {}'")

    monkeypatch.setattr(instructions, "valgrind_version", lambda: "valgrind-3.19.0")
    monkeypatch.setattr(instructions, "measure", failing)
    out = tmp_path / "counted.json"
    argv = ["--sides", "pyadk", "--scenarios", "c", "--output", str(out)]
    assert instructions.main(argv) == 1
    assert "FAILED pyadk c {'runs': 10}: D answered" in capsys.readouterr().err
    assert not out.exists()  # no results file for a failed count
