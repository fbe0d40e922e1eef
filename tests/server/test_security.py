"""Security defaults over real HTTP: tokens, user isolation, CORS/Origin, Host, size limit."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest
from server_support import AGENTS_DIR, LiveServer, read_sse, run_body

from pyadk.server import create_app
from pyadk.sessions import InMemorySessionService

ALICE_SESSIONS = "/apps/chat/users/alice/sessions"


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@pytest.fixture
def per_user(serve: Callable[[Any], LiveServer]) -> LiveServer:
    """Tokens bound to users: alice-token -> alice, bob-token -> bob, admin -> any."""
    tokens = {"alice-token": "alice", "bob-token": "bob", "admin-token": "*"}
    return serve(create_app(AGENTS_DIR, auth_token=tokens))


@pytest.mark.parametrize(
    "headers",
    [{}, bearer("wrong"), {"Authorization": "Basic c2VjcmV0"}, {"Authorization": "Bearer"}],
)
def test_requests_without_a_valid_token_are_401(
    serve: Callable[[Any], LiveServer], headers: dict[str, str]
) -> None:
    client = serve(create_app(AGENTS_DIR, auth_token="s3cret")).client(**headers)

    for response in (
        client.get("/list-apps"),
        client.post(ALICE_SESSIONS + "/s1"),
        client.post("/run_sse", json=run_body("chat", "alice", "s1", "hi")),
    ):
        assert response.status_code == 401
        assert response.headers["www-authenticate"] == 'Bearer realm="pyadk"'
        assert "bearer token" in response.json()["detail"]


def test_single_token_may_act_as_any_user(serve: Callable[[Any], LiveServer]) -> None:
    client = serve(create_app(AGENTS_DIR, auth_token="s3cret")).client(**bearer("s3cret"))

    assert client.get("/list-apps").status_code == 200
    assert client.post(ALICE_SESSIONS + "/s1").status_code == 200
    assert client.post("/apps/chat/users/bob/sessions/s1").status_code == 200
    assert client.get("/health").json() == {"status": "ok"}


def test_open_paths_need_no_token(serve: Callable[[Any], LiveServer]) -> None:
    client = serve(create_app(AGENTS_DIR, auth_token="s3cret", web_ui=True)).client()

    assert client.get("/health").status_code == 200
    assert client.get("/ui-protocol").json()["version"] == 1
    assert client.get("/dev-ui/").status_code == 200
    assert client.get("/", follow_redirects=False).headers["location"] == "/dev-ui/"
    assert client.get("/list-apps").status_code == 401


def test_a_user_token_reaches_only_that_users_sessions(per_user: LiveServer) -> None:
    alice, bob = per_user.client(**bearer("alice-token")), per_user.client(**bearer("bob-token"))
    assert alice.post(ALICE_SESSIONS + "/s1", json={"secret": 1}).status_code == 200

    attempts = [
        bob.get(ALICE_SESSIONS),
        bob.get(ALICE_SESSIONS + "/s1"),
        bob.post(ALICE_SESSIONS + "/s2"),
        bob.delete(ALICE_SESSIONS + "/s1"),
        bob.get(ALICE_SESSIONS + "/s1/artifacts"),
        bob.get(ALICE_SESSIONS + "/s1/ui-events"),
        bob.get(ALICE_SESSIONS + "/s1/events/e1/graph"),
        bob.post("/run", json=run_body("chat", "alice", "s1", "hi")),
        bob.post("/run_sse", json=run_body("chat", "alice", "s1", "hi")),
        bob.post("/run_ui_events", json=run_body("chat", "alice", "s1", "hi")),
    ]

    for response in attempts:
        assert response.status_code == 403, response.request.url
        assert response.json()["detail"] == (
            "This token belongs to user 'bob': it cannot access user 'alice'."
        )
    session = alice.get(ALICE_SESSIONS + "/s1").json()
    assert session["state"] == {"secret": 1} and session["events"] == []
    assert [s["id"] for s in alice.get(ALICE_SESSIONS).json()] == ["s1"]


def test_a_user_cannot_resume_or_cancel_another_users_run(per_user: LiveServer) -> None:
    alice, bob = per_user.client(**bearer("alice-token")), per_user.client(**bearer("bob-token"))
    admin = per_user.client(**bearer("admin-token"))
    alice.post(ALICE_SESSIONS + "/s1")
    with alice.stream("POST", "/run_ui_events", json=run_body("chat", "alice", "s1", "hi")) as r:
        run_id = r.headers["x-run-id"]
        mine = read_sse(r.iter_lines()).messages

    assert bob.get(f"/run_ui_events/{run_id}").status_code == 403
    assert bob.delete(f"/run_ui_events/{run_id}").status_code == 403
    replay = admin.get(f"/run_ui_events/{run_id}")  # an any-user token may
    assert [m.id for m in read_sse(replay.text.splitlines()).messages] == [m.id for m in mine]


def test_cors_is_closed_by_default(serve: Callable[[Any], LiveServer]) -> None:
    service = InMemorySessionService()
    client = serve(create_app(AGENTS_DIR, session_service=service)).client()
    evil = {"Origin": "http://evil.example"}

    read = client.get("/list-apps", headers=evil)
    # a "simple" cross-site POST is sent by browsers without a preflight: refused too
    write = client.post(
        ALICE_SESSIONS + "/s1", content=b"{}", headers={**evil, "Content-Type": "text/plain"}
    )
    preflight = client.options(
        ALICE_SESSIONS,
        headers={**evil, "Access-Control-Request-Method": "POST"},
    )

    for response in (read, write, preflight):
        assert response.status_code == 403
        assert "access-control-allow-origin" not in response.headers
        assert "--allow-origins http://evil.example" in response.json()["detail"]
    listed = asyncio.run(service.list_sessions(app_name="chat", user_id="alice"))
    assert listed.sessions == []


def test_same_origin_requests_are_allowed(serve: Callable[[Any], LiveServer]) -> None:
    server = serve(create_app(AGENTS_DIR))

    response = server.client(Origin=server.url).get("/list-apps")

    assert response.status_code == 200


def test_allowed_origin_gets_cors_headers(serve: Callable[[Any], LiveServer]) -> None:
    app = create_app(AGENTS_DIR, auth_token="s3cret", allow_origins=["http://ui.example"])
    client = serve(app).client(Origin="http://ui.example")

    preflight = client.options(
        "/run_ui_events",
        headers={
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "authorization,content-type",
        },
    )
    denied = client.get("/list-apps")  # no token: 401, readable by the allowed page
    allowed = client.get("/list-apps", headers=bearer("s3cret"))
    other = client.get("/list-apps", headers={**bearer("s3cret"), "Origin": "http://evil.example"})

    assert preflight.status_code == 200
    assert preflight.headers["access-control-allow-origin"] == "http://ui.example"
    assert denied.status_code == 401
    assert denied.headers["access-control-allow-origin"] == "http://ui.example"
    assert allowed.status_code == 200 and allowed.json()[0] == "broken"
    assert allowed.headers["access-control-allow-origin"] == "http://ui.example"
    assert other.status_code == 403 and "access-control-allow-origin" not in other.headers


def test_untrusted_host_header_is_refused(serve: Callable[[Any], LiveServer]) -> None:
    # A DNS-rebinding page reaches 127.0.0.1 under its own name, with a matching Origin.
    server = serve(create_app(AGENTS_DIR))
    headers = {"Host": "attacker.example:8000", "Origin": "http://attacker.example:8000"}

    response = server.client().get("/list-apps", headers=headers)
    localhost = server.client().get("/list-apps", headers={"Host": f"localhost:{server.port}"})

    assert response.status_code == 400
    assert "Host 'attacker.example:8000' is not trusted" in response.json()["detail"]
    assert localhost.status_code == 200


def test_trusted_hosts_can_be_widened(serve: Callable[[Any], LiveServer]) -> None:
    server = serve(create_app(AGENTS_DIR, trusted_hosts=["agents.internal"]))

    assert server.client(Host="agents.internal").get("/list-apps").status_code == 200
    assert server.client().get("/list-apps").status_code == 400  # 127.0.0.1 no longer listed


def test_request_body_over_the_limit_is_413_and_nothing_is_written(
    serve: Callable[[Any], LiveServer],
) -> None:
    service = InMemorySessionService()
    client = serve(create_app(AGENTS_DIR, session_service=service, max_request_bytes=1024)).client()
    big_state = {"blob": "x" * 2000}

    declared = client.post(ALICE_SESSIONS + "/s1", json=big_state)

    def chunks() -> Any:  # no Content-Length: counted while reading
        yield b'{"blob": "'
        for _ in range(20):
            yield b"x" * 100
        yield b'"}'

    chunked = client.post(
        ALICE_SESSIONS + "/s2", content=chunks(), headers={"Content-Type": "application/json"}
    )
    small = client.post(ALICE_SESSIONS + "/s3", json={"blob": "x" * 100})

    for response in (declared, chunked):
        assert response.status_code == 413
        assert response.json()["detail"] == "Request body too large: the limit is 1024 bytes."
    assert small.status_code == 200
    listed = asyncio.run(service.list_sessions(app_name="chat", user_id="alice"))
    assert [s.id for s in listed.sessions] == ["s3"]


def test_invalid_auth_configuration_is_rejected_at_startup() -> None:
    with pytest.raises(ValueError, match="tokens must be non-empty"):
        create_app(AGENTS_DIR, auth_token={"": "alice"})
    with pytest.raises(ValueError, match="needs agents_dir, agents, or both"):
        create_app()
