"""``python -m pyadk.contrib.bench``: run, report and tasks."""

from __future__ import annotations

import builtins
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from bench_fixtures import small_task_set
from workflow_fakes import ref

from pyadk.contrib.bench import cli


def write_tasks(tmp_path: Path) -> Path:
    path = tmp_path / "tasks.json"
    path.write_text(small_task_set().model_dump_json(), encoding="utf-8")
    return path


def test_run_prints_the_summary_and_where_reports_are(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    code = cli.main(
        [
            "run",
            "--tasks",
            str(write_tasks(tmp_path)),
            "--generator",
            f"code={ref('create_code_generator')}",
            "--model",
            "none",
            "--seed",
            "7",
            "--out",
            str(out),
            "--plain",
        ]
    )
    captured = capsys.readouterr()
    assert code == 0
    lines = captured.out.splitlines()
    assert lines[0].split() == [
        "generator",
        "passed",
        "pass",
        "rate",
        "mean",
        "time",
        "(s)",
        "mean",
        "model",
        "calls",
        "tokens",
        "mean",
        "iterations",
    ]
    assert lines[1].split()[:3] == ["code", "2/2", "100%"]
    assert f"results: {out / 'results.jsonl'}" in captured.out
    assert f"plot: {out / 'plot.png'}" in captured.out
    assert "[1/2] code hello: pass" in captured.err  # plain progress lines
    run = json.loads((out / "run.json").read_text(encoding="utf-8"))
    assert run["seed"] == 7 and run["model"] == "none" and run["temperature"] == 0.0
    options = run["generators"][0]["options"]
    assert options == {"max_iterations": 3, "sandbox_model": "none", "run_timeout": 120.0}


def test_report_rebuilds_from_a_run_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    args = ["run", "--tasks", str(write_tasks(tmp_path)), "--task", "hello", "--quiet"]
    cli.main([*args, "--generator", f"code={ref('create_code_generator')}", "--out", str(out)])
    (out / "report.md").unlink()
    capsys.readouterr()
    assert cli.main(["report", str(out)]) == 0
    assert "| hello | code | pass |" in (out / "report.md").read_text(encoding="utf-8")
    assert capsys.readouterr().out.splitlines()[1].split()[:3] == ["code", "1/1", "100%"]


def test_tasks_lists_the_starter_suite(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["tasks"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) >= 15
    assert lines[0].split() == ["hello_agent", "difficulty", "1", "command"]
    assert lines[1].split()[-1] == "pyadk.contrib.bench.checkers:check_add_tool"


def test_bad_arguments_exit_with_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["run", "--generator", "nonsense", "--out", str(tmp_path)]) == 2
    assert "error: Unknown generator 'nonsense'" in capsys.readouterr().err
    assert cli.main(["run", "--task", "nope", "--out", str(tmp_path)]) == 2
    assert "error: unknown task ids: nope" in capsys.readouterr().err


def test_module_entry_point() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "pyadk.contrib.bench", "--help"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0 and "{run,report,tasks}" in done.stdout


def test_missing_matplotlib_is_explained(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "out"
    args = ["run", "--tasks", str(write_tasks(tmp_path)), "--task", "hello", "--quiet"]
    cli.main([*args, "--generator", f"code={ref('create_code_generator')}", "--out", str(out)])
    capsys.readouterr()
    real_import = builtins.__import__

    def no_matplotlib(name: str, *rest: Any, **kwargs: Any) -> Any:
        if name.startswith("matplotlib"):
            raise ImportError(name)
        return real_import(name, *rest, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_matplotlib)
    (out / "plot.png").unlink()
    assert cli.main(["report", str(out)]) == 0
    assert cli.MATPLOTLIB_HINT in capsys.readouterr().out
    assert not (out / "plot.png").exists()


def pyadk_command(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """Runs the `pyadk` command (its console-script entry point) in a subprocess."""
    env = {**os.environ, "PYADK_DEFAULT_MODEL": "none"}
    return subprocess.run(
        [sys.executable, "-c", "from pyadk.cli.main import main; main()", *args],
        capture_output=True,
        text=True,
        check=False,
        cwd=cwd,
        env=env,
        timeout=300,
    )


def test_pyadk_bench_subcommand_runs_a_benchmark(tmp_path: Path) -> None:
    tasks = write_tasks(tmp_path)
    generator = f"code={ref('create_code_generator')}"
    done = pyadk_command(
        "bench", "run", "--tasks", str(tasks), "--generator", generator, "--model", "none",
        "--seed", "3", "--plain", "--out", "out", cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[1].split()[:3] == ["code", "2/2", "100%"]
    assert "[2/2] code add_tool: pass" in done.stderr
    results = [json.loads(line) for line in (tmp_path / "out" / "results.jsonl").open()]
    assert [(r["task_id"], r["passed"]) for r in results] == [("hello", True), ("add_tool", True)]
    assert json.loads((tmp_path / "out" / "run.json").read_text())["seed"] == 3


def test_pyadk_bench_help_errors_and_listing(tmp_path: Path) -> None:
    listed = pyadk_command("--help", cwd=tmp_path)
    assert listed.returncode == 0 and "bench" in listed.stdout
    usage = pyadk_command("bench", "--help", cwd=tmp_path)
    assert usage.returncode == 0
    assert usage.stdout.startswith("usage: pyadk bench") and "{run,report,tasks}" in usage.stdout
    starter = pyadk_command("bench", "tasks", cwd=tmp_path)
    assert starter.returncode == 0 and starter.stdout.split()[0] == "hello_agent"
    bad = pyadk_command("bench", "run", "--generator", "nonsense", "--out", "x", cwd=tmp_path)
    assert bad.returncode == 2 and "error: Unknown generator 'nonsense'" in bad.stderr
    missing = pyadk_command("bench", "report", str(tmp_path / "nowhere"), cwd=tmp_path)
    assert missing.returncode == 2 and missing.stderr.startswith("error:")
