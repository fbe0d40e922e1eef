"""POST /run_ui_events over real HTTP: the seed's silent-handoff guarantees, errors as
events, and resuming a dropped stream with Last-Event-ID."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
from server_support import (
    AGENTS_DIR,
    LiveServer,
    SseMessage,
    gated_agent,
    parse_sse_lines,
    read_sse,
    run_body,
)

from pyadk.server import create_app
from pyadk.server.context import ServerSettings


@pytest.fixture
def client(serve: Callable[[Any], LiveServer]) -> httpx.Client:
    return serve(create_app(AGENTS_DIR)).client()


def ui_run(client: httpx.Client, app: str, text: str, **extra: Any) -> tuple[httpx.Response, list]:
    client.post(f"/apps/{app}/users/alice/sessions/s1")
    with client.stream(
        "POST", "/run_ui_events", json=run_body(app, "alice", "s1", text, **extra)
    ) as r:
        messages = read_sse(r.iter_lines()).messages
    return r, messages


def test_handoff_is_silent_and_the_specialist_really_runs(client: httpx.Client) -> None:
    response, messages = ui_run(client, "team", "for i in x: pass")
    events = [m.json() for m in messages]

    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/event-stream")
    chat = "".join(e["delta"] for e in events if e["type"] == "content")
    assert chat == "Found 2 issues in your code. Fix the loop."
    assert "transfer" not in chat.lower()
    assert all("transfer" not in e["text"].lower() for e in events if e["type"] == "final")
    thinking = [(e["kind"], e["text"]) for e in events if e["type"] == "thinking"]
    assert ("handoff_text", "Transferring you to the code reviewer.") in thinking
    assert ("handoff", "Handing off to code_reviewer") in thinking
    # the specialist was invoked: its tool ran, its events carry its name
    tools = [(e["type"], e["agent"], e["tool"]) for e in events if e["type"].startswith("tool")]
    assert tools == [
        ("tool_start", "code_reviewer", "review_code"),
        ("tool_end", "code_reviewer", "review_code"),
    ]
    tool_end = next(e for e in events if e["type"] == "tool_end")
    assert tool_end["result"] == {"issues": 2, "summary": "2 issues in 'for i in x: pass'"}
    artifacts = client.get("/apps/team/users/alice/sessions/s1/artifacts").json()
    assert artifacts == ["review.txt"]
    # progress arrives before the answer; the answer was streamed in several deltas
    types_in_order = [e["type"] for e in events]
    first_content = types_in_order.index("content")
    assert {"agent_active", "tool_start", "tool_end"} <= set(types_in_order[:first_content])
    assert types_in_order.count("content") >= 2
    final = next(e for e in events if e["type"] == "final")
    assert (final["agent"], final["text"], final["interim"]) == ("code_reviewer", chat, False)


def test_stream_framing_ids_and_done(client: httpx.Client) -> None:
    response, messages = ui_run(client, "team", "x")
    events = [m.json() for m in messages]
    run_id = response.headers["x-run-id"]

    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    assert [m.id for m in messages] == [f"{run_id}:{e['seq']}" for e in events]
    assert all(
        e["id"] == m.id and e["runId"] == run_id and e["v"] == 1
        for e, m in zip(events, messages, strict=True)
    )
    assert [e["type"] for e in events].count("done") == 1
    assert events[-1]["type"] == "done" and events[-1]["reason"] == "completed"
    assert events[-1]["finalText"] == "Found 2 issues in your code. Fix the loop."
    assert all(isinstance(e["timestamp"], float) and e["invocationId"] for e in events)


def test_non_streaming_request_gives_one_delta_per_message(client: httpx.Client) -> None:
    _, messages = ui_run(client, "chat", "hi", streaming=False)

    events = [m.json() for m in messages]
    assert [(e["type"], e.get("delta") or e.get("text")) for e in events[1:]] == [
        ("content", "Hello there. You said: hi"),
        ("final", "Hello there. You said: hi"),
        ("done", None),
    ]


def test_error_after_streaming_started_is_an_error_event_then_done(client: httpx.Client) -> None:
    response, messages = ui_run(client, "failing", "go")
    events = [m.json() for m in messages]

    assert response.status_code == 200
    assert [e["type"] for e in events] == [
        "agent_active",
        "content",
        "final",
        "tool_start",
        "tool_end",
        "thinking",
        "error",
        "done",
    ]
    assert events[1]["delta"] == "Let me look that up. " and events[2]["interim"] is True
    assert events[5]["kind"] == "outcome" and events[5]["data"]["status"] == "failure"
    assert events[6] | {"timestamp": 0} == events[6] | {
        "message": "model backend exploded",
        "errorType": "RuntimeError",
        "fatal": True,
        "timestamp": 0,
    }
    assert events[7]["reason"] == "error" and events[7]["finalText"] is None


def read_until(lines: Iterator[str], stop: Callable[[dict[str, Any]], bool]) -> list[SseMessage]:
    seen: list[SseMessage] = []
    for item in parse_sse_lines(lines):
        if isinstance(item, SseMessage):
            seen.append(item)
            if stop(item.json()):
                break
    return seen


def test_dropped_stream_resumes_after_last_event_id(
    serve: Callable[[Any], LiveServer], gate: threading.Event
) -> None:
    server = serve(create_app(agents={"worker": gated_agent(gate)}))
    client = server.client()
    client.post("/apps/worker/users/alice/sessions/s1")

    with client.stream("POST", "/run_ui_events", json=run_body("worker", "alice", "s1", "go")) as r:
        run_id = r.headers["x-run-id"]
        before = read_until(r.iter_lines(), lambda e: e["type"] == "tool_start")
    # the connection is gone; the run goes on and finishes once the tool is released
    gate.set()

    headers = {"Last-Event-ID": before[-1].id or ""}
    with client.stream("GET", f"/run_ui_events/{run_id}", headers=headers) as resumed:
        assert resumed.status_code == 200
        after = read_sse(resumed.iter_lines()).messages

    seqs = [m.json()["seq"] for m in before + after]
    assert seqs == list(range(1, len(seqs) + 1))  # no gap, no duplicate
    assert [m.json()["type"] for m in after] == ["tool_end", "content", "final", "done"]
    assert after[-1].json()["reason"] == "completed"
    assert after[-2].json()["text"] == "All done."

    replay = client.get(f"/run_ui_events/{run_id}", params={"after": 0})
    assert [m.id for m in read_sse(replay.text.splitlines()).messages] == [
        m.id for m in before + after
    ]
    bare = client.get(f"/run_ui_events/{run_id}", headers={"Last-Event-ID": str(seqs[-2])})
    assert [m.json()["type"] for m in read_sse(bare.text.splitlines()).messages] == ["done"]


def test_resume_errors(client: httpx.Client) -> None:
    response, _ = ui_run(client, "chat", "hi")
    run_id = response.headers["x-run-id"]

    unknown = client.get("/run_ui_events/nope")
    other_run = client.get(f"/run_ui_events/{run_id}", headers={"Last-Event-ID": "other:3"})
    garbage = client.get(f"/run_ui_events/{run_id}", headers={"Last-Event-ID": "abc"})

    assert (unknown.status_code, unknown.json()["detail"]) == (
        404,
        "Run not found or expired: 'nope'.",
    )
    assert other_run.status_code == 400 and "another run" in other_run.json()["detail"]
    assert garbage.status_code == 400 and "Invalid Last-Event-ID" in garbage.json()["detail"]


def test_cancel_ends_the_stream_with_done_cancelled(
    serve: Callable[[Any], LiveServer], gate: threading.Event
) -> None:
    server = serve(create_app(agents={"worker": gated_agent(gate)}))
    client = server.client()
    client.post("/apps/worker/users/alice/sessions/s1")

    with client.stream("POST", "/run_ui_events", json=run_body("worker", "alice", "s1", "go")) as r:
        lines = r.iter_lines()
        read_until(lines, lambda e: e["type"] == "tool_start")
        cancelled = client.delete(f"/run_ui_events/{r.headers['x-run-id']}")
        rest = [m.json() for m in read_sse(lines).messages]

    assert cancelled.json() == {"cancelled": True}
    assert [(e["type"], e.get("reason")) for e in rest] == [("done", "cancelled")]
    assert client.delete(f"/run_ui_events/{r.headers['x-run-id']}").json() == {"cancelled": False}


def test_idle_stream_sends_keep_alive_comments(
    serve: Callable[[Any], LiveServer], gate: threading.Event
) -> None:
    app = create_app(
        agents={"worker": gated_agent(gate)},
        settings=ServerSettings(sse_keepalive_seconds=0.05),
    )
    client = serve(app).client()
    client.post("/apps/worker/users/alice/sessions/s1")

    with client.stream("POST", "/run_ui_events", json=run_body("worker", "alice", "s1", "go")) as r:
        items = parse_sse_lines(r.iter_lines())
        kinds: list[str] = []
        for item in items:
            kinds.append(item if isinstance(item, str) else item.json()["type"])
            if item == "keep-alive":
                gate.set()  # the tool is still running: the stream stayed open meanwhile
        assert kinds.index("keep-alive") > kinds.index("tool_start")
        assert kinds[-1] == "done"


def test_session_history_as_ui_events(client: httpx.Client) -> None:
    ui_run(client, "team", "x = 1")

    history = client.get("/apps/team/users/alice/sessions/s1/ui-events").json()

    assert history[0]["type"] == "user_message" and history[0]["text"] == "x = 1"
    chat = "".join(e["delta"] for e in history if e["type"] == "content")
    assert chat == "Found 2 issues in your code. Fix the loop."
    assert [e["tool"] for e in history if e["type"] == "tool_start"] == ["review_code"]
    assert "done" not in [e["type"] for e in history]


def test_protocol_info(client: httpx.Client) -> None:
    info = client.get("/ui-protocol").json()

    assert info["version"] == 1
    assert {
        "thinking",
        "agent_active",
        "tool_start",
        "tool_end",
        "content",
        "final",
        "error",
        "done",
    } <= set(info["types"])
