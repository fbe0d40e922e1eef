"""`pyadk run` sessions: --save-session, --resume, --session-uri, and bad session files."""

from __future__ import annotations

import json
from pathlib import Path

from pyadk.sessions.session import Session

# Replies with how many user messages the model received: shows what history it got.
COUNTER = """
from pyadk.agents import LlmAgent
from pyadk.testing import FunctionModel


def reply(request):
    users = [c for c in request.contents if c.role == "user" and c.text]
    return f"seen {len(users)} user messages: " + ", ".join(c.text for c in users)


root_agent = LlmAgent(name="counter", model=FunctionModel(reply), output_key="last")
"""


def test_save_session_writes_the_session_json_in_the_agent_dir(run_cli, write_agent):
    folder = write_agent("counter", COUNTER)
    result = run_cli("run", "counter", "--save-session", "--session-id", "s1", input="a\nb\n")
    assert result.returncode == 0, result.stderr
    path = folder / "s1.session.json"
    assert f"Session saved to {Path('counter') / 's1.session.json'}" in result.stdout
    session = Session.model_validate_json(path.read_text())
    assert session.id == "s1" and session.app_name == "counter"
    assert [(e.author, e.text) for e in session.events] == [
        ("user", "a"),
        ("counter", "seen 1 user messages: a"),
        ("user", "b"),
        ("counter", "seen 2 user messages: a, b"),
    ]
    assert session.state == {"last": "seen 2 user messages: a, b"}
    raw = json.loads(path.read_text())
    assert "app_name" in raw and "null" not in path.read_text()  # ADK's layout


def test_without_save_session_nothing_is_written(run_cli, write_agent):
    folder = write_agent("counter", COUNTER)
    assert run_cli("run", "counter", "--session-id", "s1", input="a\n").returncode == 0
    assert not list(folder.glob("*.session.json"))


def test_resume_replays_history_then_continues_with_it(run_cli, write_agent):
    folder = write_agent("counter", COUNTER)
    first = run_cli("run", "counter", "--save-session", "--session-id", "s1", input="a\n")
    assert first.returncode == 0, first.stderr
    saved = folder / "s1.session.json"
    save_as_s2 = ("--save-session", "--session-id", "s2")
    result = run_cli("run", "counter", "--resume", str(saved), *save_as_s2, input="b\n")
    assert result.returncode == 0, result.stderr
    out = result.stdout.splitlines()
    assert out[0] == f"Resumed 2 events from {saved}."
    assert out[1:3] == ["[user]: a", "[counter]: seen 1 user messages: a"]
    assert "[counter]: seen 2 user messages: a, b" in out  # the model got the old turn
    resumed = Session.model_validate_json((folder / "s2.session.json").read_text())
    assert [e.text for e in resumed.events] == [
        "a",
        "seen 1 user messages: a",
        "b",
        "seen 2 user messages: a, b",
    ]
    assert resumed.state == {"last": "seen 2 user messages: a, b"}


def test_resume_keeps_create_time_state_from_a_replay(run_cli, write_agent, tmp_path):
    folder = write_agent("counter", COUNTER)
    replay = tmp_path / "r.json"
    replay.write_text(json.dumps({"state": {"topic": "tides"}, "queries": ["a"]}))
    args = ("--save-session", "--session-id", "s1")
    assert run_cli("run", "counter", "--replay", str(replay), *args).returncode == 0
    saved = str(folder / "s1.session.json")
    result = run_cli("run", "counter", "--resume", saved, "--save-session", "--session-id", "s2")
    assert result.returncode == 0, result.stderr
    resumed = Session.model_validate_json((folder / "s2.session.json").read_text())
    assert resumed.state == {"topic": "tides", "last": "seen 1 user messages: a"}


def test_sqlite_session_uri_continues_a_session_across_runs(run_cli, write_agent, tmp_path):
    write_agent("counter", COUNTER)
    uri = f"sqlite:///{tmp_path / 'sessions.db'}"
    first = run_cli("run", "counter", "--session-uri", uri, "--session-id", "s", input="a\n")
    assert first.returncode == 0, first.stderr
    assert (tmp_path / "sessions.db").is_file()
    second = run_cli("run", "counter", "--session-uri", uri, "--session-id", "s", input="b\n")
    assert second.returncode == 0, second.stderr
    assert "[counter]: seen 2 user messages: a, b" in second.stdout.splitlines()


def test_memory_session_uri_starts_empty_each_run(run_cli, write_agent):
    write_agent("counter", COUNTER)
    for text in ("a", "b"):
        result = run_cli("run", "counter", "--session-uri", "memory://", input=f"{text}\n")
        assert f"[counter]: seen 1 user messages: {text}" in result.stdout.splitlines()


def test_bad_session_uri_is_a_clear_error(run_cli, write_agent):
    write_agent("counter", COUNTER)
    result = run_cli("run", "counter", "--session-uri", "redis://x", input="a\n")
    assert result.returncode == 1
    assert "--session-uri" in result.stderr and "redis" in result.stderr
    assert "Traceback" not in result.stderr


def test_resume_rejects_a_file_that_is_not_a_session(run_cli, write_agent, tmp_path):
    write_agent("counter", COUNTER)
    bad = tmp_path / "bad.session.json"
    bad.write_text(json.dumps({"events": []}))
    result = run_cli("run", "counter", "--resume", str(bad))
    assert result.returncode == 1
    assert f"Invalid file {bad}" in result.stderr
    assert "id: Field required" in result.stderr


def test_replay_rejects_a_file_without_queries(run_cli, write_agent, tmp_path):
    write_agent("counter", COUNTER)
    bad = tmp_path / "replay.json"
    bad.write_text("{not json")
    result = run_cli("run", "counter", "--replay", str(bad))
    assert result.returncode == 1
    assert f"Invalid file {bad}" in result.stderr and "queries" in result.stderr
    bad.write_text(json.dumps({"state": {}}))
    result = run_cli("run", "counter", "--replay", str(bad))
    assert result.returncode == 1 and "queries: Field required" in result.stderr


def test_replay_into_an_existing_session_id_is_refused(run_cli, write_agent, tmp_path):
    write_agent("counter", COUNTER)
    uri = f"sqlite:///{tmp_path / 'sessions.db'}"
    assert run_cli("run", "counter", "--session-uri", uri, "--session-id", "s").returncode == 0
    replay = tmp_path / "r.json"
    replay.write_text(json.dumps({"queries": ["a"]}))
    result = run_cli(
        "run", "counter", "--session-uri", uri, "--session-id", "s", "--replay", str(replay)
    )
    assert result.returncode == 1
    assert "'s' already exists" in result.stderr


def test_google_adk_option_spellings_are_accepted(run_cli, write_agent, tmp_path):
    folder = write_agent("counter", COUNTER)
    uri = f"sqlite:///{tmp_path / 'sessions.db'}"
    adk_style = ("--save_session", "--session_id", "s1", "--user_id", "ada")
    result = run_cli("run", "counter", *adk_style, "--session_service_uri", uri, input="a\n")
    assert result.returncode == 0, result.stderr
    session = Session.model_validate_json((folder / "s1.session.json").read_text())
    assert (session.id, session.user_id) == ("s1", "ada")
    again = run_cli(
        "run",
        "counter",
        "--session-id",
        "s1",
        "--user-id",
        "ada",
        "--session-uri",
        uri,
        input="b\n",
    )
    assert "[counter]: seen 2 user messages: a, b" in again.stdout.splitlines()
