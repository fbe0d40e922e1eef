"""``PATCH /apps/{app}/users/{user}/sessions/{id}`` (google-adk's UpdateSessionRequest)
over real HTTP: the state delta is stored as a ``user`` event, without running the agent."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from server_support import AGENTS_DIR, LiveServer, gated_agent, parse_sse_lines, run_body

from pyadk.server import create_app

BASE = "/apps/chat/users/alice/sessions"


@pytest.fixture
def client(serve: Callable[[Any], LiveServer]) -> httpx.Client:
    return serve(create_app(AGENTS_DIR)).client()


def test_patch_stores_the_delta_as_a_user_event_and_returns_the_session(
    client: httpx.Client,
) -> None:
    client.post(BASE + "/s1", json={"topic": "tea", "n": 1})

    response = client.patch(
        BASE + "/s1", json={"stateDelta": {"topic": "coffee", "cart": {"items": [1, 2]}}}
    )

    assert response.status_code == 200
    body = response.json()
    assert body["state"] == {"topic": "coffee", "n": 1, "cart": {"items": [1, 2]}}
    assert body == client.get(BASE + "/s1").json()  # what GET returns
    [event] = body["events"]
    assert event["author"] == "user"
    assert event["invocationId"].startswith("p-")
    assert event["actions"]["stateDelta"] == {"topic": "coffee", "cart": {"items": [1, 2]}}
    assert "content" not in event


def test_patch_accepts_snake_case_and_null_values(client: httpx.Client) -> None:
    client.post(BASE + "/s1", json={"topic": "tea"})

    response = client.patch(BASE + "/s1", json={"state_delta": {"topic": None, "x": [True]}})

    assert response.status_code == 200
    assert response.json()["state"] == {"topic": None, "x": [True]}


def test_user_and_app_keys_reach_their_scopes(client: httpx.Client) -> None:
    client.post(BASE + "/s1")
    client.post(BASE + "/s2")

    client.patch(BASE + "/s1", json={"stateDelta": {"user:lang": "fr", "app:mode": "dev"}})

    other = client.get(BASE + "/s2").json()["state"]
    assert other == {"user:lang": "fr", "app:mode": "dev"}


@pytest.mark.parametrize(
    ("path", "detail"),
    [
        (BASE + "/nope", "Session not found: 'nope'."),
        ("/apps/nope/users/alice/sessions/s1", "App not found: 'nope'"),
    ],
)
def test_unknown_session_or_app_is_404(client: httpx.Client, path: str, detail: str) -> None:
    client.post(BASE + "/s1")

    response = client.patch(path, json={"stateDelta": {"a": 1}})

    assert response.status_code == 404
    assert response.json()["detail"].startswith(detail)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"stateDelta": {"temp:scratch": 1, "kept": 2}}, "temp: keys live for one invocation"),
        ({"stateDelta": {}}, "stateDelta is empty"),
        ({}, "Field required"),
        ({"stateDelta": [1]}, "valid dictionary"),
    ],
)
def test_invalid_bodies_are_422_and_nothing_is_written(
    client: httpx.Client, body: dict[str, Any], message: str
) -> None:
    client.post(BASE + "/s1", json={"topic": "tea"})

    response = client.patch(BASE + "/s1", json=body)

    assert response.status_code == 422
    assert message in str(response.json()["detail"])
    stored = client.get(BASE + "/s1").json()
    assert stored["state"] == {"topic": "tea"} and stored["events"] == []


def test_a_session_held_by_a_turn_is_409_and_nothing_is_written(
    serve: Callable[[Any], LiveServer], gate: threading.Event
) -> None:
    client = serve(create_app(agents={"worker": gated_agent(gate)})).client()
    path = "/apps/worker/users/alice/sessions/s1"
    client.post(path, json={"topic": "tea"})
    with client.stream("POST", "/run_sse", json=run_body("worker", "alice", "s1", "go")) as run:
        assert run.status_code == 200
        lines = run.iter_lines()
        next(item for item in parse_sse_lines(lines) if not isinstance(item, str))
        before = client.get(path).json()

        refused = client.patch(path, json={"stateDelta": {"topic": "coffee"}})

        assert client.get(path).json()["events"] == before["events"]
        gate.set()
        for _ in lines:  # the turn ends
            pass

    assert refused.status_code == 409
    assert "Session 's1' is busy" in refused.json()["detail"]
    assert int(refused.headers["retry-after"]) >= 1
    # the turn is over: the update goes through
    after = client.patch(path, json={"stateDelta": {"topic": "coffee"}})
    assert after.status_code == 200 and after.json()["state"]["topic"] == "coffee"


def test_patch_follows_the_token_rules(serve: Callable[[Any], LiveServer]) -> None:
    tokens = {"alice-token": "alice", "bob-token": "bob"}
    server = serve(create_app(AGENTS_DIR, auth_token=tokens))
    alice = server.client(Authorization="Bearer alice-token")
    alice.post(BASE + "/s1", json={"secret": 1})

    anonymous = server.client().patch(BASE + "/s1", json={"stateDelta": {"secret": 2}})
    bob = server.client(Authorization="Bearer bob-token")
    other = bob.patch(BASE + "/s1", json={"stateDelta": {"secret": 2}})

    assert anonymous.status_code == 401
    assert other.status_code == 403
    assert alice.get(BASE + "/s1").json()["state"] == {"secret": 1}
    assert alice.patch(BASE + "/s1", json={"stateDelta": {"secret": 3}}).status_code == 200


def test_the_update_event_adds_no_ui_event_and_the_next_turn_sees_the_state(
    client: httpx.Client,
) -> None:
    client.post(BASE + "/s1")
    client.post("/run", json=run_body("chat", "alice", "s1", "hello"))
    before = client.get(BASE + "/s1/ui-events").json()

    client.patch(BASE + "/s1", json={"stateDelta": {"topic": "tea"}})

    after = client.get(BASE + "/s1/ui-events")
    assert after.status_code == 200
    assert [e["type"] for e in after.json()] == [e["type"] for e in before]
    client.post("/run", json=run_body("chat", "alice", "s1", "again"))
    assert client.get(BASE + "/s1").json()["state"]["topic"] == "tea"
