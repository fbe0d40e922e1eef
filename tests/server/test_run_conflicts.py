"""Busy and changed sessions on the streaming routes, over real HTTP: HTTP 409 before a
stream starts, an in-stream error after (never a cut stream, never a 500 mid-stream)."""

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

from pyadk.agents import LlmAgent
from pyadk.events.event import Event
from pyadk.server import create_app
from pyadk.sessions import InMemorySessionService
from pyadk.sessions.errors import SessionBusyError, SessionConflictError, StaleSessionError
from pyadk.sessions.session import Session
from pyadk.testing import ScriptedModel, function_call

STREAM_ROUTES = ["/run_sse", "/run_ui_events"]


def first_messages(lines: Iterator[str], count: int) -> list[SseMessage]:
    seen: list[SseMessage] = []
    for item in parse_sse_lines(lines):
        if isinstance(item, SseMessage):
            seen.append(item)
            if len(seen) == count:
                break
    return seen


def stored_texts(client: httpx.Client, app: str, session: str = "s1") -> list[str]:
    events = client.get(f"/apps/{app}/users/alice/sessions/{session}").json()["events"]
    return [
        part.get("text") or next(iter(part))
        for event in events
        for part in event.get("content", {}).get("parts", [])
    ]


def test_a_busy_session_is_409_on_every_run_route_and_nothing_is_written(
    serve: Callable[[Any], LiveServer], gate: threading.Event
) -> None:
    client = serve(create_app(agents={"worker": gated_agent(gate)})).client()
    client.post("/apps/worker/users/alice/sessions/s1")
    first = client.stream("POST", "/run_sse", json=run_body("worker", "alice", "s1", "go"))
    with first as running:
        assert running.status_code == 200  # its turn holds the session: the tool waits
        lines = running.iter_lines()
        first_messages(lines, 1)
        before = stored_texts(client, "worker")

        refused = {
            route: client.post(route, json=run_body("worker", "alice", "s1", "me too"))
            for route in ["/run", *STREAM_ROUTES]
        }

        assert stored_texts(client, "worker") == before  # no "me too" stored
        gate.set()
        rest = [m.json() for m in read_sse(lines).messages]

    for route, response in refused.items():
        assert response.status_code == 409, route
        assert response.headers["content-type"] == "application/json", route
        assert "Session 's1' is busy" in response.json()["detail"], route
        assert "Nothing was written" in response.json()["detail"], route
        assert int(response.headers["retry-after"]) >= 1, route
    assert rest[-1]["content"]["parts"][0]["text"] == "All done."  # the holder finished
    # the session is free again: the next turn runs
    with client.stream(
        "POST", "/run_ui_events", json=run_body("worker", "alice", "s1", "again")
    ) as again:
        assert again.status_code == 200
        assert read_sse(again.iter_lines()).messages[-1].json()["type"] == "done"


class ChangedByAnotherWriter(InMemorySessionService):
    """Another writer got there first: the turn's first append (the user message) fails."""

    async def append_event(self, session: Session, event: Event) -> Event:
        raise StaleSessionError(
            f"Session {session.id!r} was changed by another writer.", session_id=session.id
        )


@pytest.mark.parametrize("route", STREAM_ROUTES)
def test_a_session_changed_before_the_turn_began_is_409_without_a_stream(
    serve: Callable[[Any], LiveServer], route: str
) -> None:
    client = serve(create_app(AGENTS_DIR, session_service=ChangedByAnotherWriter())).client()
    client.post("/apps/chat/users/alice/sessions/s1")

    response = client.post(route, json=run_body("chat", "alice", "s1", "hi"))

    assert response.status_code == 409
    assert response.json() == {"detail": "Session 's1' was changed by another writer."}
    assert "retry-after" not in response.headers  # a stale session can be retried at once
    assert stored_texts(client, "chat") == []


class FailsAfterTheUserMessage(InMemorySessionService):
    """The user's message is stored; the agent's first event is refused with ``error``
    (another writer changed the session, or the turn lost its lease meanwhile)."""

    def __init__(self, error: SessionConflictError) -> None:
        super().__init__()
        self.error = error

    async def append_event(self, session: Session, event: Event) -> Event:
        if event.author != "user" and not event.partial:
            raise self.error
        return await super().append_event(session, event)


CONFLICTS_MID_TURN = [
    StaleSessionError("Session 's1' was changed by another writer.", session_id="s1"),
    SessionBusyError("This turn's lease on session 's1' expired and was lost.", session_id="s1"),
]


@pytest.mark.parametrize("error", CONFLICTS_MID_TURN, ids=lambda e: type(e).__name__)
def test_run_sse_reports_a_conflict_after_the_stream_started_in_the_stream(
    serve: Callable[[Any], LiveServer], error: SessionConflictError
) -> None:
    service = FailsAfterTheUserMessage(error)
    client = serve(create_app(AGENTS_DIR, session_service=service)).client()
    client.post("/apps/chat/users/alice/sessions/s1")
    body = run_body("chat", "alice", "s1", "hi", streaming=True)

    with client.stream("POST", "/run_sse", json=body) as response:
        assert response.status_code == 200
        messages = [m.json() for m in read_sse(response.iter_lines()).messages]

    *partials, last = messages
    assert [p["content"]["parts"][0]["text"] for p in partials] == [
        "Hello",
        " there. ",
        "You said: ",
        "hi",
    ]
    assert all(p["partial"] is True for p in partials)
    assert last == {"error": f"{type(error).__name__}: {error}"}
    assert stored_texts(client, "chat") == ["hi"]  # the user's message; nothing after it


@pytest.mark.parametrize("error", CONFLICTS_MID_TURN, ids=lambda e: type(e).__name__)
def test_run_ui_events_reports_a_conflict_after_the_stream_started_as_error_then_done(
    serve: Callable[[Any], LiveServer], error: SessionConflictError
) -> None:
    service = FailsAfterTheUserMessage(error)
    client = serve(create_app(AGENTS_DIR, session_service=service)).client()
    client.post("/apps/chat/users/alice/sessions/s1")

    with client.stream(
        "POST", "/run_ui_events", json=run_body("chat", "alice", "s1", "hi")
    ) as response:
        assert response.status_code == 200
        events = [m.json() for m in read_sse(response.iter_lines()).messages]

    assert [e["type"] for e in events] == [
        "agent_active",
        "content",
        "content",
        "final",
        "error",
        "done",
    ]
    assert events[3]["truncated"] is True  # the answer was cut short
    assert events[4]["errorType"] == type(error).__name__
    assert (events[4]["message"], events[4]["fatal"]) == (str(error), True)
    assert events[5]["reason"] == "error"


def test_a_run_refused_with_409_leaves_no_run_to_resume(
    serve: Callable[[Any], LiveServer], gate: threading.Event
) -> None:
    client = serve(create_app(agents={"worker": gated_agent(gate)})).client()
    client.post("/apps/worker/users/alice/sessions/s1")
    with client.stream(
        "POST", "/run_ui_events", json=run_body("worker", "alice", "s1", "go")
    ) as running:
        first_messages(running.iter_lines(), 1)
        refused = client.post("/run_ui_events", json=run_body("worker", "alice", "s1", "2"))
        gate.set()

    assert refused.status_code == 409
    assert "x-run-id" not in refused.headers
    resumed = client.get(f"/run_ui_events/{running.headers['x-run-id']}", params={"after": 0})
    assert read_sse(resumed.text.splitlines()).messages[-1].json()["type"] == "done"


def test_dropping_a_run_sse_stream_ends_its_turn_and_frees_the_session(
    serve: Callable[[Any], LiveServer], gate: threading.Event
) -> None:
    client = serve(create_app(agents={"worker": gated_agent(gate)})).client()
    client.post("/apps/worker/users/alice/sessions/s1")
    with client.stream("POST", "/run_sse", json=run_body("worker", "alice", "s1", "go")) as running:
        first_messages(running.iter_lines(), 1)  # the tool call: the tool now waits
    # the client went away: the server cancels the turn, which gives the session up

    statuses = []
    for _ in range(200):  # the server notices the disconnection asynchronously
        response = client.post("/run", json=run_body("worker", "alice", "s1", "next"))
        statuses.append(response.status_code)
        if response.status_code != 409:
            break
        gate.wait(0.05)
    assert statuses[-1] == 200, statuses
    texts = stored_texts(client, "worker")
    dropped_turn = texts[: texts.index("next")]
    assert dropped_turn == ["go", "Working on it. ", "functionCall"]  # the tool never returned


def test_a_tool_result_json_cannot_hold_does_not_cut_the_streams(
    serve: Callable[[Any], LiveServer],
) -> None:
    class Opaque:
        def __repr__(self) -> str:
            return "<Opaque handle>"

    def open_handle() -> dict:
        """Opens a handle."""
        return {"handle": Opaque()}

    model = ScriptedModel([function_call("open_handle", {}), "Opened."] * 2)
    agent = LlmAgent(name="opener", model=model, tools=[open_handle])
    client = serve(create_app(agents={"opener": agent})).client()
    client.post("/apps/opener/users/alice/sessions/s1")

    with client.stream("POST", "/run_sse", json=run_body("opener", "alice", "s1", "go")) as r:
        sse = [m.json() for m in read_sse(r.iter_lines()).messages]
    with client.stream("POST", "/run_ui_events", json=run_body("opener", "alice", "s1", "go")) as r:
        ui = [m.json() for m in read_sse(r.iter_lines()).messages]

    response = sse[1]["content"]["parts"][0]["functionResponse"]["response"]
    assert response == {"handle": "<Opaque handle>"}
    assert sse[-1]["content"]["parts"][0]["text"] == "Opened."
    tool_end = next(e for e in ui if e["type"] == "tool_end")
    assert tool_end["result"] == {"handle": "<Opaque handle>"}
    assert (ui[-1]["type"], ui[-1]["reason"]) == ("done", "completed")
