"""examples/vana (seed 002) over the UI event stream of the real server.

The seed's tests made real: handoffs are silent (no transfer text in chat ``content`` or
``final``), the specialist is really invoked (its tool ran, its events carry its name,
``agent_active`` shows it), progress events arrive before the answer, and the
full_review workflow chains the specialists through state.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from vana.agent import MODEL_ENV, choose_model
from vana.offline_model import OfflineModel
from vana.tools import analyze_numbers, review_code, scan_for_secrets

from pyadk.models.defaults import set_default_model
from pyadk.server import AgentLoader, create_app

VANA_DIR = Path(__file__).resolve().parents[2] / "examples" / "vana"
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server"))
from server_support import LiveServer, read_sse, run_body  # noqa: E402

CODE = "from os import *\ndef load(path, cache={}):\n    print(path)\n    if cache == None:\n"
SECRET = "AKIAIOSFODNN7EXAMPLE"
HANDOFF_WORDS = re.compile(r"transfer|hand(?:ing)? (?:this )?(?:off|over)|rout(?:e|ing) this", re.I)


# -- the tools: real work on their input ----------------------------------------------


def test_review_code_finds_issues_by_rule():
    result = review_code(CODE + "    x = 1  # TODO " + "y" * 90)
    assert result["lines"] == 5
    assert result["by_rule"] == {
        "wildcard-import": 1,
        "mutable-default": 1,
        "debug-print": 1,
        "none-comparison": 1,
        "line-too-long": 1,
        "todo": 1,
    }
    assert result["issue_count"] == 6
    assert result["issues"][0] == {
        "line": 1,
        "rule": "wildcard-import",
        "message": "wildcard import hides where names come from",
    }
    assert review_code("def ok(x):\n    return x is None\n")["issue_count"] == 0


def test_scan_for_secrets_finds_them_and_never_repeats_them():
    text = f'aws = "{SECRET}"\npassword = "hunter22"\ndb = "postgres://app:s3cr3t@db/prod"\nok'
    result = scan_for_secrets(text)
    assert result["lines_scanned"] == 4
    assert result["by_kind"] == {
        "aws-access-key-id": 1,
        "hardcoded-credential": 1,
        "url-credentials": 1,
    }
    assert result["findings"][0] == {
        "line": 1,
        "kind": "aws-access-key-id",
        "severity": "high",
        "match": "AKIA... (20 chars)",
    }
    for secret in (SECRET, "hunter22", "s3cr3t"):
        assert secret not in repr(result)
    assert scan_for_secrets("x = 1")["count"] == 0


def test_analyze_numbers_computes_statistics_and_outliers():
    assert analyze_numbers([1, 2, 3, 4, 100]) == {
        "count": 5,
        "sum": 110,
        "mean": 22,
        "median": 3,
        "min": 1,
        "max": 100,
        "stdev": 43.618,
        "outliers": [100],
    }
    assert analyze_numbers([2.5])["stdev"] == 0
    assert analyze_numbers([]) == {"error": "No numbers to analyse: give at least one number."}


def test_model_choice(monkeypatch):
    monkeypatch.delenv(MODEL_ENV, raising=False)
    set_default_model(None)
    assert isinstance(choose_model(), OfflineModel)
    set_default_model("some-model")
    assert choose_model() == ""  # pyadk's default model
    monkeypatch.setenv(MODEL_ENV, "offline")
    assert isinstance(choose_model(), OfflineModel)
    monkeypatch.setenv(MODEL_ENV, "gemini-2.5-flash")
    assert choose_model() == "gemini-2.5-flash"


# -- over the real server ---------------------------------------------------------------


class Vana:
    """The vana app of ``examples/vana`` served by uvicorn, and one session of it."""

    def __init__(self, server: LiveServer, app: Any) -> None:
        self.client = server.client()
        self.root = app.state.pyadk.agent("vana")
        self.session = self.client.post("/apps/vana/users/dev/sessions", json={}).json()["id"]

    def turn(self, text: str) -> list[dict[str, Any]]:
        body = run_body("vana", "dev", self.session, text)
        with self.client.stream("POST", "/run_ui_events", json=body) as response:
            assert response.status_code == 200
            return [m.json() for m in read_sse(response.iter_lines()).messages]

    def get(self, path: str = "") -> Any:
        return self.client.get(f"/apps/vana/users/dev/sessions/{self.session}{path}").json()


@pytest.fixture
def vana(monkeypatch) -> Iterator[Vana]:
    """``pyadk web examples/vana`` without a default model: the offline stand-in."""
    monkeypatch.delenv(MODEL_ENV, raising=False)
    set_default_model(None)  # restored by conftest
    AgentLoader(VANA_DIR).invalidate("vana")  # import again: root_agent chooses its model now
    app = create_app(VANA_DIR, web_ui=True)
    with LiveServer(app) as server:
        yield Vana(server, app)
    AgentLoader(VANA_DIR).invalidate("vana")


def chat_text(events: list[dict[str, Any]]) -> list[str]:
    return [e.get("delta") or e.get("text") for e in events if e["type"] in ("content", "final")]


def of(events: list[dict[str, Any]], type_: str, **match: Any) -> list[dict[str, Any]]:
    """The events of a type whose fields have the given values."""
    return [
        e for e in events if e["type"] == type_ and all(e.get(k) == v for k, v in match.items())
    ]


def seq(events: list[dict[str, Any]], type_: str, **match: Any) -> int:
    return of(events, type_, **match)[0]["seq"]


def assert_silent(events: list[dict[str, Any]], announcement: str) -> None:
    """No handoff text reached the chat; the model's announcement went to thinking."""
    for text in chat_text(events):
        assert not HANDOFF_WORDS.search(text), text
    hidden = of(events, "thinking", kind="handoff_text")
    assert [e["text"] for e in hidden] == [announcement]
    assert all(e["internal"] for e in hidden)


def test_code_review_is_a_silent_handoff_to_the_real_specialist(vana):
    events = vana.turn(f"Review this code:\n{CODE}")
    assert vana.root.model.model == "vana-offline"  # the stand-in (no default model)

    assert_silent(events, "Transferring you to our code review specialist.")
    assert of(events, "thinking", kind="handoff")[0]["data"]["to"] == "code_reviewer"
    active = of(events, "agent_active", agent="code_reviewer")
    assert len(active) == 1 and active[0]["reason"] == "transfer"
    assert active[0]["previousAgent"] == "vana"
    assert active[0]["description"].startswith("Code review specialist")

    expected = review_code(CODE)
    (start,) = of(events, "tool_start")
    (end,) = of(events, "tool_end")
    assert (start["agent"], start["tool"], start["args"]) == (
        "code_reviewer",
        "review_code",
        {"code": CODE},
    )
    assert (end["agent"], end["result"], end["isError"]) == ("code_reviewer", expected, False)
    (final,) = of(events, "final")
    assert final["agent"] == "code_reviewer"
    assert final["text"].startswith("Code review: 4 issue(s) in 4 line(s).\n- line 1: ")
    assert {e["agent"] for e in of(events, "content")} == {"code_reviewer"}
    assert len(of(events, "content")) >= 2  # streamed
    for progress in ("agent_active", "tool_start", "tool_end"):
        assert seq(events, progress, agent="code_reviewer") < final["seq"]
    assert events[-1]["type"] == "done" and events[-1]["finalText"] == final["text"]

    stored = vana.get()["events"]
    responses = [
        part["functionResponse"]
        for e in stored
        if e["author"] == "code_reviewer"
        for part in e["content"]["parts"]
        if "functionResponse" in part
    ]
    assert [r["name"] for r in responses] == ["review_code"]


def test_security_scan_keeps_secrets_out_of_the_chat(vana):
    events = vana.turn(f'Scan this for secrets:\nKEY = "{SECRET}"\npassword = "hunter22"')

    assert_silent(events, "Let me route this to the security specialist.")
    assert [e["agent"] for e in of(events, "agent_active")] == ["vana", "security_scanner"]
    (end,) = of(events, "tool_end", tool="scan_for_secrets")
    assert end["result"]["by_kind"] == {"aws-access-key-id": 1, "hardcoded-credential": 1}
    (final,) = of(events, "final")
    assert final["text"] == (
        "Security scan: 2 possible secret(s) in 2 line(s).\n"
        "- line 1: aws-access-key-id (high), AKIA... (20 chars)\n"
        "- line 2: hardcoded-credential (medium), pass... (21 chars)"
    )
    assert SECRET not in " ".join(chat_text(events)) + repr(end["result"])


def test_data_analysis_progress_arrives_before_the_answer(vana):
    events = vana.turn("Give me the stats of: 4, 8, 15, 16, 23, 42")

    assert_silent(events, "I'll hand this over to the data analyst.")
    (start,) = of(events, "tool_start", agent="data_analyst")
    assert start["args"] == {"numbers": [4.0, 8.0, 15.0, 16.0, 23.0, 42.0]}
    (final,) = of(events, "final")
    assert final["text"] == (
        "Data analysis of 6 numbers: mean 18, median 15.5, min 4, max 42, "
        "standard deviation 13.491. Outliers: none."
    )
    kinds = [e["type"] for e in events]
    assert kinds.index("tool_end") < kinds.index("content") < kinds.index("final")
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))


def test_full_review_workflow_chains_the_specialists_through_state(vana):
    code = 'password = "hunter22"\nif user == None:\n    print(user)'
    events = vana.turn(f"Full review please:\n{code}")

    assert_silent(events, "Handing off to the full review workflow.")
    assert [(e["agent"], e["reason"]) for e in of(events, "agent_active")] == [
        ("vana", "start"),
        ("full_review", "transfer"),
        ("code_review_step", "switch"),
        ("security_scan_step", "switch"),
        ("review_report", "switch"),
    ]
    tools = [(e["agent"], e["tool"], e["args"]) for e in of(events, "tool_start")]
    assert tools == [
        ("code_review_step", "review_code", {"code": code}),
        ("security_scan_step", "scan_for_secrets", {"text": code}),
    ]
    review = "Code review: 2 issue(s) in 3 line(s)."
    scan = "Security scan: 1 possible secret(s) in 3 line(s)."
    finals = {e["agent"]: e["text"] for e in of(events, "final")}
    assert finals["code_review_step"].startswith(review + "\n")
    assert finals["security_scan_step"].startswith(scan + "\n")
    assert finals["review_report"] == "\n".join(
        ["Full review report", review, scan, "Verdict: not ready: remove the secrets first."]
    )
    state_updates = [e["data"] for e in of(events, "thinking", kind="state")]
    assert state_updates == [
        {"code_review": finals["code_review_step"]},
        {"security_scan": finals["security_scan_step"]},
    ]
    assert vana.get()["state"] == {
        "code_review": finals["code_review_step"],
        "security_scan": finals["security_scan_step"],
    }
    # the report's model read the steps' results from its instruction (state injection)
    instruction = vana.root.model.requests[-1].system_instruction_text()
    assert f"<code_review>\n{finals['code_review_step']}\n</code_review>" in instruction
    assert f"<security_scan>\n{finals['security_scan_step']}\n</security_scan>" in instruction


def test_next_message_goes_back_to_the_orchestrator_and_history_replays(vana):
    first = vana.turn(f"Review this code:\n{CODE}")
    second = vana.turn("hi")

    assert [(e["agent"], e["reason"]) for e in of(second, "agent_active")] == [("vana", "start")]
    assert not of(second, "thinking", kind="handoff")
    assert of(second, "final")[0]["text"].startswith("Hi, I'm VANA.")

    history = vana.get("/ui-events")
    assert [e["text"] for e in of(history, "user_message")] == [f"Review this code:\n{CODE}", "hi"]
    answers = [of(first, "final")[0]["text"], of(second, "final")[0]["text"]]
    assert [e["text"] for e in of(history, "final")] == answers
    assert_silent(history, "Transferring you to our code review specialist.")


# -- the command line ---------------------------------------------------------------------


def _offline_env() -> dict[str, str]:
    return {**os.environ, MODEL_ENV: "offline", "NO_COLOR": "1", "PYTHONPATH": str(VANA_DIR)}


def test_pyadk_run_chats_with_vana_in_the_terminal():
    result = subprocess.run(
        [sys.executable, "-m", "pyadk.cli", "run", str(VANA_DIR / "vana")],
        input="Give me the stats of: 1, 2, 3, 4, 100\nexit\n",
        env=_offline_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert "analyze_numbers" in result.stdout
    assert "[data_analyst]: Data analysis of 5 numbers: mean 22, median 3" in result.stdout
    assert "Outliers: 100." in result.stdout


def test_python_m_vana_shows_chat_and_thinking_panel():
    result = subprocess.run(
        [sys.executable, "-m", "vana"],
        cwd=VANA_DIR,
        env=_offline_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    thinking, _, chat = result.stdout.partition("chat:")
    assert "handoff_text: Handing off to the full review workflow." in thinking
    assert "security_scan_step -> scan_for_secrets" in thinking
    assert "Verdict: not ready: remove the secrets first." in chat
    assert "Handing off" not in chat
