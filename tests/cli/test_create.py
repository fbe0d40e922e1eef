"""`pyadk create NAME`: a project that runs at once with `pyadk run`, no key needed."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from pyadk.cli.create_cmd import agent_files


def test_create_writes_the_project_files(run_cli, tmp_path: Path):
    result = run_cli("create", "calc")
    assert result.returncode == 0, result.stderr
    folder = tmp_path / "calc"
    assert sorted(p.name for p in folder.iterdir()) == [".env.example", "__init__.py", "agent.py"]
    assert (folder / "__init__.py").read_text() == agent_files("calc", None)["__init__.py"]
    assert "from . import agent" in (folder / "__init__.py").read_text()
    assert "GOOGLE_API_KEY" in (folder / ".env.example").read_text()
    assert str(folder.relative_to(tmp_path) / "agent.py") in result.stdout
    assert "pyadk run calc" in result.stdout


def test_created_agent_answers_a_replay_offline(run_cli, tmp_path: Path):
    assert run_cli("create", "calc").returncode == 0
    replay = tmp_path / "queries.json"
    replay.write_text(json.dumps({"state": {}, "queries": ["What is 6 * 7?", "hi"]}))
    # The offline demo model, not the embedded one the machine may have installed.
    result = run_cli("run", "calc", "--replay", str(replay), env={"PYADK_DEFAULT_MODEL": "none"})
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "[user]: What is 6 * 7?",
        '[calc] → multiply({"a": 6.0, "b": 7.0})',
        '[calc] ← multiply returned {"result": 42.0}',
        "[calc]: The answer is 42.",
        "[user]: hi",
        "[calc]: I can add or multiply two numbers: try 'what is 6 * 7?'.",
    ]


def test_created_agent_chats_over_stdin_until_exit(run_cli):
    assert run_cli("create", "calc").returncode == 0
    result = run_cli("run", "calc", input="what is 2 + 3?\n\nexit\nwhat is 1 + 1?\n")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "Running agent calc" in out
    assert "[user]: what is 2 + 3?" in out
    assert "[calc]: The answer is 5." in out
    assert "1 + 1" not in out  # nothing after `exit` was sent


def test_created_agent_chat_ends_at_end_of_input(run_cli):
    assert run_cli("create", "calc").returncode == 0
    result = run_cli("run", "calc", input="what is 4 * 5?")  # no newline, no exit
    assert result.returncode == 0, result.stderr
    assert "[calc]: The answer is 20." in result.stdout


def test_create_with_model_names_it_in_agent_py(run_cli, tmp_path: Path):
    result = run_cli("create", "helper", "--model", "gemini-2.0-flash", "--dir", "apps")
    assert result.returncode != 0  # --dir must exist
    assert "apps" in result.stderr
    (tmp_path / "apps").mkdir()
    result = run_cli("create", "helper", "--model", "gemini-2.0-flash", "--dir", "apps")
    assert result.returncode == 0, result.stderr
    probe = subprocess.run(
        [sys.executable, "-c", "from helper.agent import root_agent; print(root_agent.model)"],
        cwd=tmp_path / "apps",
        capture_output=True,
        text=True,
        check=True,
    )
    assert probe.stdout.strip() == "gemini-2.0-flash"
    assert "demo_model_reply" not in (tmp_path / "apps/helper/agent.py").read_text()


def test_create_refuses_an_existing_directory(run_cli, tmp_path: Path):
    existing = tmp_path / "calc"
    existing.mkdir()
    (existing / "agent.py").write_text("# mine\n")
    result = run_cli("create", "calc")
    assert result.returncode == 1
    assert "calc already exists" in result.stderr
    assert (existing / "agent.py").read_text() == "# mine\n"
    assert not (existing / "__init__.py").exists()


def test_create_rejects_a_name_that_is_not_importable(run_cli, tmp_path: Path):
    result = run_cli("create", "my-agent")
    assert result.returncode == 1
    assert "Invalid agent name 'my-agent'" in result.stderr
    assert not (tmp_path / "my-agent").exists()
