"""WebSocket /run_live (google-adk's route, text only) against a real uvicorn server,
driven by the `websockets` client."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from server_support import AGENTS_DIR, LiveServer, gated_agent, parse_sse_lines, run_body
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import ClientConnection, connect

from pyadk.server import create_app
from pyadk.server.routes_live import MEDIA_NOT_SUPPORTED, SAVE_LIVE_BLOB_NOT_SUPPORTED

TIMEOUT = 20  # seconds; a guard against a hung test, not a timing assertion


def text_request(text: str) -> str:
    return json.dumps({"content": {"role": "user", "parts": [{"text": text}]}})


@pytest.fixture
def server(serve: Callable[[Any], LiveServer]) -> LiveServer:
    server = serve(create_app(AGENTS_DIR))
    with server.client() as client:
        for app in ("chat", "team", "failing"):
            assert client.post(f"/apps/{app}/users/alice/sessions/s1").status_code == 200
    return server


@contextmanager
def live(
    server: LiveServer, app: str = "chat", query: str = "", **options: Any
) -> Iterator[ClientConnection]:
    url = f"ws://127.0.0.1:{server.port}/run_live?app_name={app}&user_id=alice&session_id=s1"
    with connect(url + query, open_timeout=TIMEOUT, **options) as ws:
        yield ws


def recv(ws: ClientConnection) -> dict[str, Any]:
    message = ws.recv(timeout=TIMEOUT)
    assert isinstance(message, str)
    data: dict[str, Any] = json.loads(message)
    return data


def ends_turn(message: dict[str, Any]) -> bool:
    """The end of a turn: its error, or the content-less turnComplete event (model
    responses may carry ``turnComplete`` too, with their content)."""
    return "error" in message or (message.get("turnComplete") is True and "content" not in message)


def recv_turn(ws: ClientConnection) -> list[dict[str, Any]]:
    """The messages of one turn, up to its end."""
    messages = [recv(ws)]
    while not ends_turn(messages[-1]):
        messages.append(recv(ws))
    return messages


def closed_with(ws: ClientConnection) -> tuple[int, str]:
    with pytest.raises(ConnectionClosed) as closed:
        ws.recv(timeout=TIMEOUT)
    assert closed.value.rcvd is not None
    return closed.value.rcvd.code, closed.value.rcvd.reason


def test_a_text_turn_streams_adk_events_then_turn_complete(server: LiveServer) -> None:
    with live(server) as ws:
        ws.send(text_request("hi"))
        first = recv_turn(ws)
        ws.send(text_request("again"))
        second = recv_turn(ws)
        ws.send(json.dumps({"close": True}))
        assert closed_with(ws) == (1000, "")

    *partials, answer, done = first
    assert [(p["author"], p["partial"], p["content"]["parts"][0]["text"]) for p in partials] == [
        ("chat", True, "Hello"),
        ("chat", True, " there. "),
        ("chat", True, "You said: "),
        ("chat", True, "hi"),
    ]
    assert answer["content"] == {"role": "model", "parts": [{"text": "Hello there. You said: hi"}]}
    assert "partial" not in answer and {"id", "invocationId", "timestamp"} <= set(answer)
    assert done["turnComplete"] is True and "content" not in done
    assert (done["author"], done["invocationId"]) == ("chat", answer["invocationId"])
    assert second[-2]["content"]["parts"][0]["text"] == "Hello there. You said: again"
    assert second[-2]["invocationId"] != answer["invocationId"]
    with server.client() as client:
        stored = client.get("/apps/chat/users/alice/sessions/s1").json()["events"]
    assert [e["content"]["parts"][0]["text"] for e in stored] == [
        "hi",
        "Hello there. You said: hi",
        "again",
        "Hello there. You said: again",
    ]
    assert [e["id"] for e in stored[1::2]] == [answer["id"], second[-2]["id"]]


def test_tool_calls_and_handoffs_arrive_as_event_json(server: LiveServer) -> None:
    with live(server, "team") as ws:
        ws.send(text_request("x = 1"))
        events = [e for e in recv_turn(ws) if not e.get("partial")]

    calls = [
        (e["author"], part["functionCall"]["name"])
        for e in events
        for part in e.get("content", {}).get("parts", [])
        if "functionCall" in part
    ]
    assert calls == [("orchestrator", "transfer_to_agent"), ("code_reviewer", "review_code")]
    assert events[1]["actions"]["transferToAgent"] == "code_reviewer"
    result = events[3]["content"]["parts"][0]["functionResponse"]
    assert result["response"] == {"issues": 2, "summary": "2 issues in 'x = 1'"}
    assert events[-2]["content"]["parts"][0]["text"] == "Found 2 issues in your code. Fix the loop."
    assert events[-1]["turnComplete"] is True and events[-1]["author"] == "code_reviewer"


@pytest.mark.parametrize("modalities", ["AUDIO", "TEXT,AUDIO", "TEXT&modalities=VIDEO"])
def test_audio_or_video_modalities_are_refused(server: LiveServer, modalities: str) -> None:
    with live(server, query=f"&modalities={modalities}") as ws:
        error = recv(ws)
        code, reason = closed_with(ws)

    assert "are not supported: text only (TEXT)" in error["error"]
    assert code == 1003 and "not supported" in reason


def test_save_live_blob_is_refused_for_text_turns(server: LiveServer) -> None:
    with live(server, query="&save_live_blob=true") as ws:
        error = recv(ws)
        code, reason = closed_with(ws)

    assert error["error"] == SAVE_LIVE_BLOB_NOT_SUPPORTED
    assert code == 1003 and reason.startswith("save_live_blob needs an agent with a live model")


def test_max_llm_calls_limits_each_text_turn(server: LiveServer) -> None:
    with live(server, "team", query="&max_llm_calls=1&save_live_blob=false") as ws:
        ws.send(text_request("x = 1"))
        limited = recv_turn(ws)
        ws.send(json.dumps({"close": True}))
        closed_with(ws)

    assert limited[-1]["error"].startswith("LlmCallsLimitExceededError: ")
    assert "Max number of LLM calls (1) exceeded" in limited[-1]["error"]


@pytest.mark.parametrize("value", ["0", "100001", "1.5", "many", ""])
def test_a_bad_max_llm_calls_is_refused(server: LiveServer, value: str) -> None:
    with live(server, query=f"&max_llm_calls={value}") as ws:
        error = recv(ws)
        code, _ = closed_with(ws)

    assert error["error"] == (
        f"Query parameter max_llm_calls={value!r} is not an integer from 1 to 100000."
    )
    assert code == 1008


def test_text_modality_is_accepted_in_any_case(server: LiveServer) -> None:
    with live(server, query="&modalities=text") as ws:
        ws.send(text_request("hi"))
        assert recv_turn(ws)[-1]["turnComplete"] is True


def test_audio_input_and_bad_requests_get_an_error_and_the_connection_stays_open(
    server: LiveServer,
) -> None:
    with live(server) as ws:
        ws.send(json.dumps({"blob": {"mimeType": "audio/pcm", "data": "AAAA"}}))
        audio = recv(ws)
        ws.send(json.dumps({"activityStart": {}}))
        activity = recv(ws)
        ws.send("not json")
        garbage = recv(ws)
        ws.send(json.dumps({"content": {"parts": [{"txt": "hi"}]}}))
        invalid = recv(ws)
        ws.send(json.dumps({}))
        empty = recv(ws)
        ws.send(text_request("still here?"))
        turn = recv_turn(ws)

    assert audio == {"error": MEDIA_NOT_SUPPORTED} and activity == audio
    assert garbage["error"].startswith("Invalid LiveRequest: body: Invalid JSON")
    assert "content.parts.0.txt: Extra inputs are not permitted" in invalid["error"]
    assert empty == {"error": 'A LiveRequest needs "content" (or "close": true).'}
    assert turn[-2]["content"]["parts"][0]["text"] == "Hello there. You said: still here?"


def test_a_failing_turn_sends_an_error_and_the_connection_stays_open(server: LiveServer) -> None:
    with live(server, "failing") as ws:
        ws.send(text_request("go"))
        messages = recv_turn(ws)
        ws.send(json.dumps({"close": True}))
        assert closed_with(ws)[0] == 1000

    assert messages[-1] == {"error": "RuntimeError: model backend exploded"}
    calls = [e for e in messages[:-1] if not e.get("partial") and "content" in e]
    assert calls[0]["content"]["parts"][-1]["functionCall"]["name"] == "lookup"
    assert not any(ends_turn(m) for m in messages[:-1])


@pytest.mark.parametrize(
    ("app", "session", "code", "message"),
    [
        ("chat", "missing", 1002, "Session not found: 'missing'."),
        ("nope", "s1", 1008, "App not found: 'nope'."),
        ("broken", "s1", 1011, "Failed to load app 'broken'"),
    ],
)
def test_unknown_session_or_app_closes_with_the_reason(
    server: LiveServer, app: str, session: str, code: int, message: str
) -> None:
    url = f"ws://127.0.0.1:{server.port}/run_live?app_name={app}&user_id=alice&session_id={session}"
    with connect(url, open_timeout=TIMEOUT) as ws:
        error = recv(ws)
        closed = closed_with(ws)

    assert error["error"].startswith(message)
    assert closed[0] == code and closed[1] == error["error"][:120]


def test_missing_query_parameters_are_refused(server: LiveServer) -> None:
    with (
        pytest.raises(InvalidStatus) as refused,
        connect(f"ws://127.0.0.1:{server.port}/run_live?app_name=chat", open_timeout=TIMEOUT),
    ):
        pass
    assert refused.value.response.status_code == 403  # FastAPI refuses the handshake


def test_tokens_users_and_origins_apply_to_the_websocket(
    serve: Callable[[Any], LiveServer],
) -> None:
    app = create_app(AGENTS_DIR, auth_token={"tok-alice": "alice", "tok-bob": "bob"})
    server = serve(app)
    alice = {"Authorization": "Bearer tok-alice"}
    with server.client(**alice) as client:
        client.post("/apps/chat/users/alice/sessions/s1")

    with pytest.raises(InvalidStatus) as no_token, live(server):
        pass
    with (
        pytest.raises(InvalidStatus) as cross_site,
        live(server, additional_headers=alice, origin="https://evil.example"),
    ):
        pass
    with live(server, additional_headers={"Authorization": "Bearer tok-bob"}) as ws:
        other_user = recv(ws)
        other_user_close = closed_with(ws)
    with live(server, additional_headers=alice) as ws:
        ws.send(text_request("hi"))
        own = recv_turn(ws)

    assert no_token.value.response.status_code == 403  # a refused handshake
    assert cross_site.value.response.status_code == 403
    assert "cannot access user 'alice'" in other_user["error"]
    assert other_user_close[0] == 1008
    assert own[-1]["turnComplete"] is True


def test_a_busy_session_is_an_error_for_that_turn_only(
    serve: Callable[[Any], LiveServer], gate: threading.Event
) -> None:
    server = serve(create_app(agents={"worker": gated_agent(gate, "Yes, now.")}))
    client = server.client()
    client.post("/apps/worker/users/alice/sessions/s1")

    with live(server, "worker") as ws:
        with client.stream(
            "POST", "/run_ui_events", json=run_body("worker", "alice", "s1", "go")
        ) as running:
            lines = running.iter_lines()
            for item in parse_sse_lines(lines):
                if not isinstance(item, str) and item.json()["type"] == "tool_start":
                    break  # the tool now waits: that turn holds the session
            ws.send(text_request("me too"))
            busy = recv(ws)
            gate.set()
            rest = [m for m in parse_sse_lines(lines) if not isinstance(m, str)]
            assert rest[-1].json()["type"] == "done"  # that turn is over: s1 is free
        ws.send(text_request("now?"))
        turn = recv_turn(ws)

    assert busy["error"].startswith("SessionBusyError: Session 's1' is busy")
    assert [e["content"]["parts"][0]["text"] for e in turn[:-1]] == ["Yes, now."]
    assert turn[-1]["turnComplete"] is True
    stored = client.get("/apps/worker/users/alice/sessions/s1").json()["events"]
    users = [e["content"]["parts"][0]["text"] for e in stored if e["author"] == "user"]
    assert users == ["go", "now?"]  # the refused "me too" was not written


def test_a_message_over_the_size_limit_closes_the_connection(
    serve: Callable[[Any], LiveServer],
) -> None:
    server = serve(create_app(AGENTS_DIR, max_request_bytes=1000))
    server.client().post("/apps/chat/users/alice/sessions/s1")

    with live(server) as ws:
        ws.send(text_request("x" * 2000))
        error = recv(ws)
        code, _ = closed_with(ws)

    assert error == {"error": "Message too large: the limit is 1000 bytes."}
    assert code == 1009
    events = server.client().get("/apps/chat/users/alice/sessions/s1").json()["events"]
    assert events == []


def test_disconnecting_cancels_the_turn_in_progress_and_frees_the_session(
    serve: Callable[[Any], LiveServer], gate: threading.Event
) -> None:
    server = serve(create_app(agents={"worker": gated_agent(gate, "Next.")}))
    client = server.client()
    client.post("/apps/worker/users/alice/sessions/s1")

    with live(server, "worker") as ws:
        ws.send(text_request("go"))
        while "functionCall" not in json.dumps(recv(ws)):
            pass  # the tool call: the tool now waits, the turn holds the session
    # the client went away: the server cancels the turn, which gives the session up

    statuses = []
    for _ in range(200):  # the server notices the disconnection asynchronously
        response = client.post("/run", json=run_body("worker", "alice", "s1", "next"))
        statuses.append(response.status_code)
        if response.status_code != 409:
            break
        gate.wait(0.05)
    assert statuses[-1] == 200, statuses
    stored = client.get("/apps/worker/users/alice/sessions/s1").json()["events"]
    assert not any("functionResponse" in json.dumps(e) for e in stored)  # the tool never returned
