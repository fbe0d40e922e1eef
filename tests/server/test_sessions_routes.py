"""ADK-compatible app and session routes over real HTTP (uvicorn on 127.0.0.1)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from server_support import AGENTS_DIR, LiveServer

from pyadk.agents import LlmAgent
from pyadk.server import create_app
from pyadk.sessions import InMemorySessionService
from pyadk.testing import ScriptedModel

BASE = "/apps/chat/users/alice/sessions"


@pytest.fixture
def client(serve: Callable[[Any], LiveServer]) -> httpx.Client:
    return serve(create_app(AGENTS_DIR)).client()


def test_list_apps_shows_the_agent_directories(client: httpx.Client) -> None:
    response = client.get("/list-apps")

    assert response.status_code == 200
    assert response.json() == ["broken", "chat", "failing", "team"]


def test_list_apps_merges_given_agents(serve: Callable[[Any], LiveServer]) -> None:
    extra = LlmAgent(name="extra", model=ScriptedModel([]))
    server = serve(create_app(AGENTS_DIR, agents={"zz_extra": extra}))

    assert server.client().get("/list-apps").json() == [
        "broken",
        "chat",
        "failing",
        "team",
        "zz_extra",
    ]


def test_session_crud_with_adk_json_shapes(client: httpx.Client) -> None:
    created = client.post(BASE + "/s1", json={"topic": "tea"})
    assert created.status_code == 200
    body = created.json()
    assert {k: body[k] for k in ("id", "appName", "userId", "state", "events")} == {
        "id": "s1",
        "appName": "chat",
        "userId": "alice",
        "state": {"topic": "tea"},
        "events": [],
    }
    assert isinstance(body["lastUpdateTime"], float)

    generated = client.post(BASE, json={"state": {"n": 1}})
    assert generated.status_code == 200
    generated_id = generated.json()["id"]
    assert generated_id and generated_id != "s1"

    listed = client.get(BASE).json()
    assert sorted(s["id"] for s in listed) == sorted(["s1", generated_id])

    fetched = client.get(BASE + "/s1").json()
    assert fetched["state"] == {"topic": "tea"} and fetched["events"] == []

    assert client.delete(BASE + "/s1").status_code == 200
    assert client.get(BASE + "/s1").status_code == 404
    assert [s["id"] for s in client.get(BASE).json()] == [generated_id]


def test_create_with_empty_body_and_sessions_are_per_user(client: httpx.Client) -> None:
    assert client.post(BASE + "/mine").status_code == 200
    assert client.post(BASE).json()["state"] == {}

    assert client.get("/apps/chat/users/bob/sessions").json() == []
    assert client.get("/apps/chat/users/bob/sessions/mine").status_code == 404


def test_creating_an_existing_session_is_400_and_keeps_its_state(client: httpx.Client) -> None:
    client.post(BASE + "/s1", json={"v": 1})

    again = client.post(BASE + "/s1", json={"v": 2})

    assert again.status_code == 400
    assert again.json()["detail"] == "Session already exists: 's1'."
    assert client.get(BASE + "/s1").json()["state"] == {"v": 1}


def test_create_session_imports_events(client: httpx.Client) -> None:
    events = [
        {"author": "user", "content": {"role": "user", "parts": [{"text": "hi"}]}},
        {
            "author": "chat",
            "content": {"role": "model", "parts": [{"text": "hello"}]},
            "actions": {"stateDelta": {"greeted": True}},
        },
    ]

    created = client.post(BASE, json={"sessionId": "imported", "events": events})

    assert created.status_code == 200
    stored = client.get(BASE + "/imported").json()
    assert [(e["author"], e["content"]["parts"][0]["text"]) for e in stored["events"]] == [
        ("user", "hi"),
        ("chat", "hello"),
    ]
    assert stored["state"] == {"greeted": True}


@pytest.mark.parametrize(
    ("body", "message_part"),
    [
        ({"state": "not a dict"}, "state: Input should be a valid dictionary"),
        ({"events": [{"content": {"parts": []}}]}, "events.0.author: Field required"),
        (
            {"events": [{"author": "u", "bogus": 1}]},
            "events.0.bogus: Extra inputs are not permitted",
        ),
    ],
)
def test_malformed_create_is_422_with_a_clear_message_and_nothing_written(
    client: httpx.Client, body: dict[str, Any], message_part: str
) -> None:
    response = client.post(BASE, json=body)

    assert response.status_code == 422
    assert message_part in response.json()["message"]
    assert isinstance(response.json()["detail"], list)  # FastAPI's detail, kept for clients
    assert client.get(BASE).json() == []


def test_malformed_state_for_create_with_id_is_422(client: httpx.Client) -> None:
    response = client.post(
        BASE + "/s1", content=b"[1, 2]", headers={"content-type": "application/json"}
    )
    not_json = client.post(
        BASE + "/s2", content=b"{oops", headers={"content-type": "application/json"}
    )

    assert response.status_code == 422 and "valid dictionary" in response.json()["message"]
    assert not_json.status_code == 422 and "JSON" in not_json.json()["message"]
    assert client.get(BASE).json() == []


def test_unknown_app_is_404_and_creates_nothing(serve: Callable[[Any], LiveServer]) -> None:
    service = InMemorySessionService()
    server = serve(create_app(AGENTS_DIR, session_service=service))

    response = server.client().post("/apps/nope/users/alice/sessions/s1", json={})
    traversal = server.client().get("/apps/..%2Fteam/users/alice/sessions")

    assert response.status_code == 404
    assert response.json()["detail"] == (
        "App not found: 'nope'. Available apps: broken, chat, failing, team."
    )
    assert traversal.status_code == 404
    listed = asyncio.run(service.list_sessions(app_name="nope", user_id="alice"))
    assert listed.sessions == []


def test_app_that_fails_to_import_is_500_naming_the_file(client: httpx.Client) -> None:
    client.post("/apps/broken/users/alice/sessions/s1")

    response = client.post(
        "/run",
        json={
            "appName": "broken",
            "userId": "alice",
            "sessionId": "s1",
            "newMessage": {"parts": [{"text": "hi"}]},
        },
    )

    assert response.status_code == 500
    detail = response.json()["detail"]
    assert "broken/agent.py:3" in detail and "pyadk_no_such_module" in detail


def test_session_service_object_is_used(serve: Callable[[Any], LiveServer]) -> None:
    service = InMemorySessionService()
    server = serve(create_app(AGENTS_DIR, session_service=service))

    server.client().post(BASE + "/s1", json={"k": "v"})

    stored = asyncio.run(service.get_session(app_name="chat", user_id="alice", session_id="s1"))
    assert stored is not None and stored.state == {"k": "v"}
