"""POST /run, POST /run_sse (ADK's stream shape) and the artifact routes, over real HTTP."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest
from server_support import AGENTS_DIR, LiveServer, read_sse, run_body

from pyadk.events.event import Event
from pyadk.server import create_app
from pyadk.sessions import InMemorySessionService
from pyadk.sessions.errors import StaleSessionError
from pyadk.sessions.session import Session


@pytest.fixture
def client(serve: Callable[[Any], LiveServer]) -> httpx.Client:
    return serve(create_app(AGENTS_DIR)).client()


def new_session(client: httpx.Client, app: str, session: str = "s1", **state: Any) -> None:
    response = client.post(f"/apps/{app}/users/alice/sessions/{session}", json=state)
    assert response.status_code == 200


def stored_events(client: httpx.Client, app: str, session: str = "s1") -> list[dict[str, Any]]:
    return client.get(f"/apps/{app}/users/alice/sessions/{session}").json()["events"]


def test_run_returns_the_events_as_adk_json_and_stores_them(client: httpx.Client) -> None:
    new_session(client, "team")

    response = client.post("/run", json=run_body("team", "alice", "s1", "def f(): pass"))

    assert response.status_code == 200
    events = response.json()
    assert [e["author"] for e in events] == [
        "orchestrator",
        "orchestrator",
        "code_reviewer",
        "code_reviewer",
        "code_reviewer",
    ]
    assert events[0]["content"]["parts"][1]["functionCall"]["name"] == "transfer_to_agent"
    assert events[1]["actions"]["transferToAgent"] == "code_reviewer"
    review = events[3]["content"]["parts"][0]["functionResponse"]
    assert review["response"] == {"issues": 2, "summary": "2 issues in 'def f(): pass'"}
    assert events[3]["actions"]["artifactDelta"] == {"review.txt": 0}
    assert events[-1]["content"]["parts"][0]["text"] == "Found 2 issues in your code. Fix the loop."
    assert all("partial" not in e for e in events)  # /run never streams
    assert {"id", "invocationId", "timestamp"} <= set(events[0])
    assert [e["id"] for e in stored_events(client, "team")[1:]] == [e["id"] for e in events]
    state = client.get("/apps/team/users/alice/sessions/s1").json()["state"]
    assert state == {"issues_found": 2}


def test_run_accepts_snake_case_and_state_delta(client: httpx.Client) -> None:
    new_session(client, "chat")
    body = {
        "app_name": "chat",
        "user_id": "alice",
        "session_id": "s1",
        "new_message": {"role": "user", "parts": [{"text": "hi"}]},
        "state_delta": {"mood": "curious"},
    }

    events = client.post("/run", json=body).json()

    assert [e["content"]["parts"][0]["text"] for e in events] == ["Hello there. You said: hi"]
    assert client.get("/apps/chat/users/alice/sessions/s1").json()["state"] == {"mood": "curious"}


def test_run_sse_sends_one_data_line_per_event(client: httpx.Client) -> None:
    new_session(client, "chat")

    with client.stream("POST", "/run_sse", json=run_body("chat", "alice", "s1", "hi")) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        stream = read_sse(response.iter_lines())

    events = [m.json() for m in stream.messages]
    assert [(e["author"], e["content"]["parts"][0]["text"]) for e in events] == [
        ("chat", "Hello there. You said: hi")
    ]
    assert stream.comments == []  # ADK's shape: nothing but data lines


def test_run_sse_with_streaming_sends_partial_events_first(client: httpx.Client) -> None:
    new_session(client, "chat")
    body = run_body("chat", "alice", "s1", "hi", streaming=True)

    with client.stream("POST", "/run_sse", json=body) as response:
        events = [m.json() for m in read_sse(response.iter_lines()).messages]

    assert [(e.get("partial"), e["content"]["parts"][0]["text"]) for e in events] == [
        (True, "Hello"),
        (True, " there. "),
        (True, "You said: "),
        (True, "hi"),
        (None, "Hello there. You said: hi"),
    ]
    # only the aggregated event is stored
    assert [e["id"] for e in stored_events(client, "chat")[1:]] == [events[-1]["id"]]


def test_run_sse_reports_an_error_after_the_stream_started(client: httpx.Client) -> None:
    new_session(client, "failing")

    with client.stream(
        "POST", "/run_sse", json=run_body("failing", "alice", "s1", "go")
    ) as response:
        assert response.status_code == 200
        messages = [m.json() for m in read_sse(response.iter_lines()).messages]

    # the streamed call, the tool result, the failure outcome, then the error
    call, result, outcome, error = messages
    assert call["content"]["parts"][-1]["functionCall"]["name"] == "lookup"
    assert result["content"]["parts"][0]["functionResponse"]["response"] == {"found": "x"}
    assert outcome["actions"]["agentOutcome"]["status"] == "failure"
    assert error == {"error": "RuntimeError: model backend exploded"}


def test_run_failure_is_500_with_the_reason(client: httpx.Client) -> None:
    new_session(client, "failing")

    response = client.post("/run", json=run_body("failing", "alice", "s1", "go"))

    assert response.status_code == 500
    assert response.json()["detail"] == "Agent run failed: RuntimeError: model backend exploded"


@pytest.mark.parametrize("route", ["/run", "/run_sse", "/run_ui_events"])
def test_unknown_session_is_404_before_anything_runs(client: httpx.Client, route: str) -> None:
    response = client.post(route, json=run_body("chat", "alice", "missing", "hi"))

    assert response.status_code == 404
    assert response.json()["detail"] == "Session not found: 'missing'."
    assert client.get("/apps/chat/users/alice/sessions").json() == []


@pytest.mark.parametrize(
    ("change", "message_part"),
    [
        ({"newMessage": {"role": "user", "parts": []}}, "newMessage needs at least one part"),
        ({"newMessage": {"parts": [{"txt": "hi"}]}}, "newMessage.parts.0.txt: Extra inputs"),
        ({"newMessage": None}, "newMessage is required (or invocationId"),
        ({"sessionId": ""}, "sessionId: String should have at least 1 character"),
        ({"runOptions": {"maxLlmCalls": 0}}, "runOptions.maxLlmCalls: Input should be greater"),
    ],
)
@pytest.mark.parametrize("route", ["/run", "/run_sse", "/run_ui_events"])
def test_malformed_run_request_is_422_and_nothing_is_written(
    client: httpx.Client, route: str, change: dict[str, Any], message_part: str
) -> None:
    new_session(client, "chat")
    body = {**run_body("chat", "alice", "s1", "hi"), **change}

    response = client.post(route, json=body)

    assert response.status_code == 422
    assert message_part in response.json()["message"]
    assert stored_events(client, "chat") == []


def test_run_options_limit_model_calls(client: httpx.Client) -> None:
    new_session(client, "team")
    body = run_body("team", "alice", "s1", "code", runOptions={"maxLlmCalls": 1})

    response = client.post("/run", json=body)

    assert response.status_code == 500
    assert "LlmCallsLimitExceededError" in response.json()["detail"]


def test_run_options_budget_ends_the_turn_with_an_event(client: httpx.Client) -> None:
    new_session(client, "team")
    body = run_body("team", "alice", "s1", "code", runOptions={"budget": {"llmCalls": 1}})

    response = client.post("/run", json=body)

    assert response.status_code == 200
    last = response.json()[-1]
    assert last["errorCode"] == "BUDGET_EXCEEDED"
    assert last["errorMessage"].startswith("Budget exceeded: llm_calls 2 of 1")
    assert stored_events(client, "team")[-1]["errorCode"] == "BUDGET_EXCEEDED"


def test_artifact_routes_after_a_tool_saved_one(client: httpx.Client) -> None:
    new_session(client, "team")
    client.post("/run", json=run_body("team", "alice", "s1", "v1"))
    client.post("/run", json=run_body("team", "alice", "s1", "v2"))
    base = "/apps/team/users/alice/sessions/s1/artifacts"

    assert client.get(base).json() == ["review.txt"]
    assert client.get(base + "/review.txt/versions").json() == [0, 1]
    assert client.get(base + "/review.txt").json() == {"text": "2 issues in 'v2'"}
    assert client.get(base + "/review.txt", params={"version": 0}).json() == {
        "text": "2 issues in 'v1'"
    }
    assert client.get(base + "/review.txt/versions/1").json() == {"text": "2 issues in 'v2'"}

    missing = client.get(base + "/review.txt/versions/7")
    assert missing.status_code == 404
    assert missing.json()["detail"] == "Artifact not found: 'review.txt' version 7."
    assert client.get(base + "/nope.txt").status_code == 404
    assert client.get(base + "/review.txt", params={"version": -1}).status_code == 422

    assert client.delete(base + "/review.txt").status_code == 200
    assert client.get(base).json() == []
    assert client.get(base + "/review.txt").status_code == 404


class ConflictingSessions(InMemorySessionService):
    """A store where another writer always got there first."""

    async def append_event(self, session: Session, event: Event) -> Event:
        raise StaleSessionError(f"Session {session.id!r} was changed by another writer.")


def test_run_on_a_session_changed_by_another_writer_is_409(
    serve: Callable[[Any], LiveServer],
) -> None:
    client = serve(create_app(AGENTS_DIR, session_service=ConflictingSessions())).client()
    new_session(client, "chat")

    response = client.post("/run", json=run_body("chat", "alice", "s1", "hi"))

    assert response.status_code == 409
    assert response.json()["detail"] == "Session 's1' was changed by another writer."
