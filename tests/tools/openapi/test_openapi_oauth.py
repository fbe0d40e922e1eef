"""OpenAPI tools behind OAuth2 / OpenID Connect, end to end: a real API on 127.0.0.1
whose operations need a bearer token issued by a real OAuth2 server (tests/auth's), a
spec declaring an authorizationCode scheme, and the consent round trip through a
Runner (request, browser, answer, code exchange, authenticated request)."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from server_support import LiveServer

from pyadk import types
from pyadk.agents import LlmAgent
from pyadk.auth import AuthCredential, AuthCredentialTypes, OAuth2Auth
from pyadk.auth.auth_schemes import OpenIdConnectWithConfig
from pyadk.auth.credential_service import InMemoryCredentialService
from pyadk.events import Event
from pyadk.events.client_requests import REQUEST_EUC_FUNCTION_CALL_NAME
from pyadk.models import LlmRequest
from pyadk.runners import Runner
from pyadk.sessions import InMemorySessionService
from pyadk.testing import FunctionModel, function_call
from pyadk.tools.openapi_tool import OpenAPIToolset

from .conftest import oauth_code_scheme

AUTH_TESTS = Path(__file__).resolve().parents[2] / "auth"
if str(AUTH_TESTS) not in sys.path:
    sys.path.insert(0, str(AUTH_TESTS))

from oauth_server import LiveOAuthServer  # noqa: E402

PENDING = {"pending": True, "message": "Needs your authorization to access your data."}
USER = "ann"


@pytest.fixture(scope="module")
def _live_oauth_server() -> Iterator[LiveOAuthServer]:
    with LiveOAuthServer() as live:
        live.register("notes-app", "notes-secret-19c4")
        live.register("notes-spa", None)  # a public client: PKCE
        yield live


@pytest.fixture
def oauth_server(_live_oauth_server: LiveOAuthServer) -> LiveOAuthServer:
    _live_oauth_server.state.reset()
    return _live_oauth_server


@dataclass
class NotesApi:
    """The protected API: every request's bearer token is checked with the OAuth2
    server (its /api/me says whose token it is)."""

    url: str
    authorizations: list[str | None] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def spec(self, oauth: LiveOAuthServer) -> dict[str, Any]:
        secured = [{"notesAuth": ["read:me"]}]
        return {
            "openapi": "3.0.3",
            "info": {"title": "Notes", "version": "1"},
            "servers": [{"url": f"{self.url}/v1"}],
            "paths": {
                "/me": {
                    "get": {
                        "operationId": "getMyProfile",
                        "summary": "The signed-in user's profile.",
                        "security": secured,
                        "responses": {"200": {"description": "the profile"}},
                    }
                },
                "/notes": {
                    "post": {
                        "operationId": "addNote",
                        "summary": "Adds a note.",
                        "security": secured,
                        "requestBody": {
                            "required": True,
                            "content": {
                                "application/json": {
                                    "schema": {
                                        "type": "object",
                                        "properties": {"text": {"type": "string"}},
                                        "required": ["text"],
                                    }
                                }
                            },
                        },
                        "responses": {"200": {"description": "the note"}},
                    }
                },
            },
            "components": {
                "securitySchemes": {
                    "notesAuth": oauth_code_scheme(oauth.url, "read:me", "Read your profile")
                }
            },
        }


def make_api(oauth: LiveOAuthServer) -> tuple[FastAPI, list[NotesApi]]:
    app = FastAPI()
    holder: list[NotesApi] = []

    async def owner(request: Request) -> dict[str, Any] | None:
        header = request.headers.get("authorization")
        holder[0].authorizations.append(header)
        if not header:
            return None
        async with httpx.AsyncClient() as client:
            answer = await client.get(f"{oauth.url}/api/me", headers={"Authorization": header})
        return dict(answer.json()) if answer.status_code == 200 else None

    def refused() -> JSONResponse:
        return JSONResponse(
            {"detail": "invalid token"},
            status_code=401,
            headers={"WWW-Authenticate": 'Bearer error="invalid_token"'},
        )

    @app.get("/v1/me")
    async def me(request: Request) -> Any:
        who = await owner(request)
        return refused() if who is None else {"user": who["sub"], "client": who["client_id"]}

    @app.post("/v1/notes")
    async def add_note(request: Request) -> Any:
        who = await owner(request)
        if who is None:
            return refused()
        text = (await request.json())["text"]
        holder[0].notes.append(text)
        return {"saved": text, "by": who["sub"]}

    return app, holder


@pytest.fixture
def notes_api(oauth_server: LiveOAuthServer) -> Iterator[NotesApi]:
    app, holder = make_api(oauth_server)
    with LiveServer(app) as live:
        holder.append(NotesApi(url=live.url))
        yield holder[0]


def client_credential(oauth: LiveOAuthServer, client_id: str, **kind: Any) -> AuthCredential:
    client = oauth.state.clients[client_id]
    return AuthCredential(
        auth_type=kind.get("auth_type", AuthCredentialTypes.OAUTH2),
        oauth2=OAuth2Auth(
            client_id=client_id, client_secret=client.secret, redirect_uri=client.redirect_uris[0]
        ),
    )


def scripted(*calls: tuple[str, dict[str, Any]]) -> FunctionModel:
    """Makes ``calls`` (in one response) for each user text, then reports the results."""

    def reply(request: LlmRequest) -> Any:
        parts = request.contents[-1].parts or []
        results = [p.function_response for p in parts if p.function_response is not None]
        if results:
            return "; ".join(json.dumps(r.response, sort_keys=True) for r in results)
        return [function_call(name, args) for name, args in calls]

    return FunctionModel(reply)


def make_runner(toolset: OpenAPIToolset, model: FunctionModel) -> Runner:
    return Runner(
        app_name="notes",
        agent=LlmAgent(name="notes_agent", model=model, tools=[toolset]),
        session_service=InMemorySessionService(),
        credential_service=InMemoryCredentialService(),
    )


async def turn(runner: Runner, message: str | types.Content) -> list[Event]:
    service = runner.session_service
    if await service.get_session(app_name="notes", user_id=USER, session_id="s") is None:
        await service.create_session(app_name="notes", user_id=USER, session_id="s")
    if isinstance(message, str):
        message = types.Content(role="user", parts=[types.Part(text=message)])
    return [e async for e in runner.run_async(user_id=USER, session_id="s", new_message=message)]


def credential_requests(events: list[Event]) -> list[types.FunctionCall]:
    return [
        c
        for e in events
        for c in e.get_function_calls()
        if c.name == REQUEST_EUC_FUNCTION_CALL_NAME
    ]


def results(events: list[Event]) -> dict[str, Any]:
    return {r.name or "": r.response for e in events for r in e.get_function_responses()}


async def consent_and_answer(request: types.FunctionCall) -> types.Content:
    """The user consents in a browser; the client answers with the redirect."""
    config = json.loads(json.dumps(request.args["authConfig"]))
    oauth2 = config["exchangedAuthCredential"]["oauth2"]
    async with httpx.AsyncClient() as browser:
        landed = await browser.get(oauth2["authUri"])
    assert landed.status_code == 302, landed.text
    oauth2["authResponseUri"] = landed.headers["location"]
    response = types.FunctionResponse(
        id=request.id, name=REQUEST_EUC_FUNCTION_CALL_NAME, response=config
    )
    return types.Content(role="user", parts=[types.Part(function_response=response)])


async def test_the_spec_oauth2_scheme_asks_consent_then_sends_the_bearer_token(
    oauth_server: LiveOAuthServer, notes_api: NotesApi
) -> None:
    secret = oauth_server.state.clients["notes-app"].secret
    assert secret is not None
    toolset = OpenAPIToolset(
        spec_dict=notes_api.spec(oauth_server),
        auth_credential=client_credential(oauth_server, "notes-app"),
        allow_private_network_access=True,
    )
    runner = make_runner(toolset, scripted(("get_my_profile", {})))

    events = await turn(runner, "who am I?")
    assert results(events) == {"get_my_profile": PENDING}
    assert notes_api.authorizations == []  # nothing was sent before the consent
    [request] = credential_requests(events)
    sent = request.args["authConfig"]
    assert sent["authScheme"]["type"] == "oauth2"
    auth_uri = sent["exchangedAuthCredential"]["oauth2"]["authUri"]
    assert auth_uri.startswith(f"{oauth_server.url}/authorize?")
    assert "client_id=notes-app" in auth_uri and "state=" in auth_uri
    assert secret not in json.dumps(request.args)

    events = await turn(runner, await consent_and_answer(request))
    assert results(events) == {"get_my_profile": {"user": "user-1", "client": "notes-app"}}
    [authorization] = notes_api.authorizations
    assert authorization is not None and authorization.startswith("Bearer at-")
    assert oauth_server.state.token_requests[0]["form"]["grant_type"] == "authorization_code"
    stored = await runner.session_service.get_session(
        app_name="notes", user_id=USER, session_id="s"
    )
    assert secret not in json.dumps(stored.model_dump(mode="json"))

    # Another operation of the toolset, another turn: the saved token, no new consent.
    runner.agent.model = scripted(("add_note", {"text": "milk"}))  # type: ignore[union-attr]
    events = await turn(runner, "note: milk")
    assert credential_requests(events) == []
    assert results(events) == {"add_note": {"saved": "milk", "by": "user-1"}}
    assert notes_api.authorizations == [authorization, authorization]
    assert len(oauth_server.state.token_requests) == 1
    await toolset.close()


async def test_calls_of_one_response_share_one_consent(
    oauth_server: LiveOAuthServer, notes_api: NotesApi
) -> None:
    toolset = OpenAPIToolset(
        spec_dict=notes_api.spec(oauth_server),
        auth_credential=client_credential(oauth_server, "notes-app"),
        allow_private_network_access=True,
        credential_key="notes-token",
    )
    model = scripted(("get_my_profile", {}), ("add_note", {"text": "eggs"}))
    runner = make_runner(toolset, model)
    events = await turn(runner, "profile and a note")
    [request] = credential_requests(events)
    assert request.args["authConfig"]["credentialKey"] == "notes-token"
    assert results(events) == {"get_my_profile": PENDING, "add_note": PENDING}
    events = await turn(runner, await consent_and_answer(request))
    assert results(events) == {
        "get_my_profile": {"user": "user-1", "client": "notes-app"},
        "add_note": {"saved": "eggs", "by": "user-1"},
    }
    assert notes_api.notes == ["eggs"]
    await toolset.close()


async def test_openid_connect_with_a_public_client_uses_pkce(
    oauth_server: LiveOAuthServer, notes_api: NotesApi
) -> None:
    scheme = OpenIdConnectWithConfig(
        authorization_endpoint=f"{oauth_server.url}/authorize",
        token_endpoint=f"{oauth_server.url}/token",
        scopes=["read:me"],
    )
    toolset = OpenAPIToolset(
        spec_dict=notes_api.spec(oauth_server),
        auth_scheme=scheme,
        auth_credential=client_credential(
            oauth_server, "notes-spa", auth_type=AuthCredentialTypes.OPEN_ID_CONNECT
        ),
        allow_private_network_access=True,
    )
    runner = make_runner(toolset, scripted(("get_my_profile", {})))
    [request] = credential_requests(await turn(runner, "who am I?"))
    assert (
        "code_challenge="
        in request.args["authConfig"]["exchangedAuthCredential"]["oauth2"]["authUri"]
    )
    events = await turn(runner, await consent_and_answer(request))
    assert results(events) == {"get_my_profile": {"user": "user-1", "client": "notes-spa"}}
    assert oauth_server.state.token_requests[0]["form"]["code_verifier"]
    await toolset.close()


async def test_a_refused_consent_comes_back_as_an_error_result(
    oauth_server: LiveOAuthServer, notes_api: NotesApi
) -> None:
    toolset = OpenAPIToolset(
        spec_dict=notes_api.spec(oauth_server),
        auth_credential=client_credential(oauth_server, "notes-app"),
        allow_private_network_access=True,
    )
    runner = make_runner(toolset, scripted(("get_my_profile", {})))
    [request] = credential_requests(await turn(runner, "who am I?"))
    oauth_server.state.deny = True  # the user says no
    events = await turn(runner, await consent_and_answer(request))
    result = results(events)["get_my_profile"]
    assert result["status"] == "error"
    assert "Authorization failed" in result["message"] and "access_denied" in result["message"]
    assert notes_api.authorizations == []
    await toolset.close()


async def test_without_a_tool_context_or_a_client_the_call_raises(
    oauth_server: LiveOAuthServer, notes_api: NotesApi
) -> None:
    toolset = OpenAPIToolset(
        spec_dict=notes_api.spec(oauth_server),
        auth_credential=client_credential(oauth_server, "notes-app"),
        allow_private_network_access=True,
    )
    tool = toolset.get_tool("get_my_profile")
    assert tool is not None
    with pytest.raises(ValueError, match=r"Tool 'get_my_profile' .* needs the user's consent"):
        await tool.call(args={})
    tool.configure_auth_credential(
        AuthCredential(auth_type=AuthCredentialTypes.OAUTH2, oauth2=OAuth2Auth())
    )
    with pytest.raises(ValueError, match="neither a token nor an OAuth2 client"):
        await tool.call(args={})
    assert notes_api.authorizations == []
    await toolset.close()
