"""OpenAPI tools whose user token the API rejects (HTTP 401), end to end through a
Runner: a real API on 127.0.0.1 that checks bearer tokens against a real OAuth2 server
(tests/auth's), answering 401 with the challenge a test chooses. A rejected token is
refreshed and the call sent again, or the user is asked again; bounded either way."""

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
from pyadk.auth import AuthCredential, AuthCredentialTypes, HttpAuth, HttpCredentials, OAuth2Auth
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
KEY = "files-token"
INVALID_TOKEN = 'Bearer error="invalid_token", error_description="expired or revoked"'
PROFILE = {"user": "user-1"}


@pytest.fixture(scope="module")
def _live_oauth_server() -> Iterator[LiveOAuthServer]:
    with LiveOAuthServer() as live:
        live.register("files-app", "files-secret-7d21")
        yield live


@pytest.fixture
def oauth_server(_live_oauth_server: LiveOAuthServer) -> LiveOAuthServer:
    _live_oauth_server.state.reset()
    return _live_oauth_server


@dataclass
class FilesApi:
    """The protected API and its switches: the challenge of its 401 for a bad token
    (None: no WWW-Authenticate header), ``reject_all`` (even good tokens) and
    ``reject_next`` (that many requests, whatever their token)."""

    url: str
    challenge: str | None = INVALID_TOKEN
    reject_all: bool = False
    reject_next: int = 0
    authorizations: list[str | None] = field(default_factory=list)

    def spec(self, oauth: LiveOAuthServer) -> dict[str, Any]:
        secured = [{"filesAuth": ["read"]}]

        def get(operation_id: str) -> dict[str, Any]:
            return {
                "get": {
                    "operationId": operation_id,
                    "security": secured,
                    "responses": {"200": {"description": "ok"}},
                }
            }

        return {
            "openapi": "3.0.3",
            "info": {"title": "Files", "version": "1"},
            "servers": [{"url": f"{self.url}/v1"}],
            "paths": {"/me": get("getMyProfile"), "/admin": get("getAdminReport")},
            "components": {
                "securitySchemes": {
                    "filesAuth": oauth_code_scheme(oauth.url, "read", "Read your files")
                }
            },
        }


def make_api(oauth: LiveOAuthServer) -> tuple[FastAPI, list[FilesApi]]:
    app = FastAPI()
    holder: list[FilesApi] = []

    def refused(api: FilesApi) -> JSONResponse:
        headers = {"WWW-Authenticate": api.challenge} if api.challenge else {}
        return JSONResponse({"detail": "bad token"}, status_code=401, headers=headers)

    def valid(request: Request) -> bool:
        api = holder[0]
        header = request.headers.get("authorization")
        api.authorizations.append(header)
        token = header[7:] if header and header.startswith("Bearer ") else ""
        if api.reject_next > 0:
            api.reject_next -= 1
            return False
        return token in oauth.state.access_tokens and not api.reject_all

    @app.get("/v1/me")
    async def me(request: Request) -> Any:
        return PROFILE if valid(request) else refused(holder[0])

    @app.get("/v1/admin")
    async def admin(request: Request) -> Any:
        if not valid(request):
            return refused(holder[0])
        return JSONResponse(
            {"detail": "needs the admin scope"},
            status_code=401,
            headers={"WWW-Authenticate": 'Bearer error="insufficient_scope", scope="admin"'},
        )

    return app, holder


@pytest.fixture
def files_api(oauth_server: LiveOAuthServer) -> Iterator[FilesApi]:
    app, holder = make_api(oauth_server)
    with LiveServer(app) as live:
        holder.append(FilesApi(url=live.url))
        yield holder[0]


def scripted(*calls: tuple[str, dict[str, Any]]) -> FunctionModel:
    """Makes ``calls`` for each user text, then reports the results."""

    def reply(request: LlmRequest) -> Any:
        parts = request.contents[-1].parts or []
        responses = [p.function_response for p in parts if p.function_response is not None]
        if responses:
            return "; ".join(json.dumps(r.response, sort_keys=True) for r in responses)
        return [function_call(name, args) for name, args in calls]

    return FunctionModel(reply)


@dataclass
class Chat:
    """A Runner over the toolset, with the helpers of a conversation."""

    oauth: LiveOAuthServer
    api: FilesApi
    toolset: OpenAPIToolset
    runner: Runner

    def calls(self, *calls: tuple[str, dict[str, Any]]) -> None:
        self.runner.agent.model = scripted(*calls)  # type: ignore[union-attr]

    async def turn(self, message: str | types.Content) -> list[Event]:
        service = self.runner.session_service
        if await service.get_session(app_name="files", user_id=USER, session_id="s") is None:
            await service.create_session(app_name="files", user_id=USER, session_id="s")
        if isinstance(message, str):
            message = types.Content(role="user", parts=[types.Part(text=message)])
        run = self.runner.run_async(user_id=USER, session_id="s", new_message=message)
        return [e async for e in run]

    async def state(self) -> dict[str, Any]:
        """The stored session's state (as a new run will see it)."""
        session = await self.runner.session_service.get_session(
            app_name="files", user_id=USER, session_id="s"
        )
        assert session is not None
        return dict(session.state)

    async def consent(self, request: types.FunctionCall) -> list[Event]:
        """The user consents in a browser; the client answers with the redirect."""
        config = json.loads(json.dumps(request.args["authConfig"]))
        oauth2 = config["exchangedAuthCredential"]["oauth2"]
        async with httpx.AsyncClient() as browser:
            landed = await browser.get(oauth2["authUri"])
        assert landed.status_code == 302, landed.text
        oauth2["authResponseUri"] = landed.headers["location"]
        return await self.turn(answer(request, config))

    async def answer_with_token(self, request: types.FunctionCall, token: str) -> list[Event]:
        """The client answers with an access token it holds (no refresh token)."""
        config = dict(request.args["authConfig"])
        config["exchangedAuthCredential"] = {"authType": "oauth2", "oauth2": {"accessToken": token}}
        return await self.turn(answer(request, config))

    def issue(self) -> str:
        """A token the OAuth2 server issued, without a refresh token."""
        return str(self.oauth.state.issue("files-app", "read", refresh=False)["access_token"])

    def revoke(self, token: str) -> None:
        self.oauth.state.access_tokens.pop(token)

    async def close(self) -> None:
        await self.toolset.close()


def answer(request: types.FunctionCall, config: dict[str, Any]) -> types.Content:
    response = types.FunctionResponse(
        id=request.id, name=REQUEST_EUC_FUNCTION_CALL_NAME, response=config
    )
    return types.Content(role="user", parts=[types.Part(function_response=response)])


@pytest.fixture
async def chat(oauth_server: LiveOAuthServer, files_api: FilesApi) -> Any:
    client = oauth_server.state.clients["files-app"]
    toolset = OpenAPIToolset(
        spec_dict=files_api.spec(oauth_server),
        auth_credential=AuthCredential(
            auth_type=AuthCredentialTypes.OAUTH2,
            oauth2=OAuth2Auth(
                client_id=client.client_id,
                client_secret=client.secret,
                redirect_uri=client.redirect_uris[0],
            ),
        ),
        allow_private_network_access=True,
        credential_key=KEY,
    )
    runner = Runner(
        app_name="files",
        agent=LlmAgent(name="files_agent", model=scripted(("get_my_profile", {})), tools=[toolset]),
        session_service=InMemorySessionService(),
        credential_service=InMemoryCredentialService(),
    )
    session = Chat(oauth_server, files_api, toolset, runner)
    yield session
    await session.close()


def credential_requests(events: list[Event]) -> list[types.FunctionCall]:
    return [
        c
        for e in events
        for c in e.get_function_calls()
        if c.name == REQUEST_EUC_FUNCTION_CALL_NAME
    ]


def results(events: list[Event]) -> dict[str, Any]:
    return {r.name or "": r.response for e in events for r in e.get_function_responses()}


def grants(oauth: LiveOAuthServer) -> list[str]:
    return [seen["form"]["grant_type"] for seen in oauth.state.token_requests]


async def signed_in(chat: Chat) -> str:
    """Runs the consent round trip (the server issues a refresh token too); returns the
    access token the API accepted."""
    [request] = credential_requests(await chat.turn("who am I?"))
    assert results(await chat.consent(request)) == {"get_my_profile": PROFILE}
    token = chat.api.authorizations[-1]
    assert token is not None
    return token[7:]


async def signed_in_without_refresh_token(chat: Chat) -> str:
    [request] = credential_requests(await chat.turn("who am I?"))
    token = chat.issue()
    assert results(await chat.answer_with_token(request, token)) == {"get_my_profile": PROFILE}
    return token


async def test_a_rejected_token_is_refreshed_and_the_call_sent_again(chat: Chat) -> None:
    old = await signed_in(chat)
    chat.revoke(old)  # expired early, say
    seen = len(chat.api.authorizations)

    events = await chat.turn("who am I, again?")
    assert results(events) == {"get_my_profile": PROFILE}  # the model never saw the 401
    assert credential_requests(events) == []
    first, retried = chat.api.authorizations[seen:]
    assert first == f"Bearer {old}" and retried != first
    assert grants(chat.oauth) == ["authorization_code", "refresh_token"]

    # The refreshed token was saved: the next turn sends it without refreshing again.
    chat.calls(("get_my_profile", {}))
    assert results(await chat.turn("and now?")) == {"get_my_profile": PROFILE}
    assert chat.api.authorizations[-1] == retried
    assert grants(chat.oauth) == ["authorization_code", "refresh_token"]


async def test_a_token_rejected_right_after_the_consent_is_refreshed(chat: Chat) -> None:
    [request] = credential_requests(await chat.turn("who am I?"))
    chat.api.reject_next = 1
    events = await chat.consent(request)
    assert results(events) == {"get_my_profile": PROFILE}
    first, retried = chat.api.authorizations
    assert retried != first  # the turn's answer was replaced by the refreshed token
    assert grants(chat.oauth) == ["authorization_code", "refresh_token"]


@pytest.mark.parametrize("challenge", [INVALID_TOKEN, None], ids=["invalid_token", "none"])
async def test_without_a_refresh_token_the_user_is_asked_again(
    chat: Chat, challenge: str | None
) -> None:
    chat.api.challenge = challenge
    old = await signed_in_without_refresh_token(chat)
    chat.revoke(old)

    events = await chat.turn("who am I, again?")
    assert results(events) == {"get_my_profile": PENDING}
    [request] = credential_requests(events)
    assert request.args["authConfig"]["credentialKey"] == KEY
    assert chat.api.authorizations[-1] == f"Bearer {old}"
    assert (await chat.state())[f"_adk_reauth_requests:{KEY}"] == 1

    # The user consents again: the call runs with the new token.
    assert results(await chat.consent(request)) == {"get_my_profile": PROFILE}
    assert chat.api.authorizations[-1] not in (None, f"Bearer {old}")
    assert (await chat.state())[f"_adk_reauth_requests:{KEY}"] == 0  # it worked


async def test_a_refresh_the_server_refuses_asks_the_user_again(chat: Chat) -> None:
    old = await signed_in(chat)
    chat.revoke(old)
    chat.oauth.state.refresh_tokens.clear()  # the grant was revoked as well

    events = await chat.turn("who am I, again?")
    assert results(events) == {"get_my_profile": PENDING}
    [request] = credential_requests(events)
    assert grants(chat.oauth) == ["authorization_code", "refresh_token"]
    assert results(await chat.consent(request)) == {"get_my_profile": PROFILE}


async def test_an_expired_token_whose_refresh_is_refused_asks_the_user_again(
    chat: Chat,
) -> None:
    chat.oauth.state.expires_in = 0  # the saved token is past its expiry on the next turn
    await signed_in(chat)
    chat.oauth.state.refresh_tokens.clear()  # and its grant was revoked
    seen = len(chat.api.authorizations)

    chat.calls(("get_my_profile", {}))
    events = await chat.turn("who am I, again?")
    assert results(events) == {"get_my_profile": PENDING}  # not "Authorization failed"
    [request] = credential_requests(events)
    assert len(chat.api.authorizations) == seen  # the expired token was never sent
    assert grants(chat.oauth) == ["authorization_code", "refresh_token"]

    chat.oauth.state.expires_in = 3600
    assert results(await chat.consent(request)) == {"get_my_profile": PROFILE}


async def test_an_expired_token_whose_refresh_cannot_reach_the_server_is_an_error(
    chat: Chat,
) -> None:
    chat.oauth.state.expires_in = 0
    await signed_in(chat)
    chat.oauth.state.fail_token_requests = True  # the token server answers 503

    chat.calls(("get_my_profile", {}))
    events = await chat.turn("who am I, again?")
    assert credential_requests(events) == []  # a passing outage is no reason to ask
    error = results(events)["get_my_profile"]
    assert "Authorization failed" in error["error"] and "503" in error["error"]


async def test_a_new_consent_the_api_still_rejects_is_reported_to_the_user(
    chat: Chat,
) -> None:
    await signed_in_without_refresh_token(chat)
    chat.api.reject_all = True  # e.g. the app's access was withdrawn at the API
    [request] = credential_requests(await chat.turn("who am I, again?"))

    seen = len(chat.api.authorizations)
    events = await chat.answer_with_token(request, chat.issue())
    assert credential_requests(events) == []  # not asked a third time
    error = results(events)["get_my_profile"]
    assert error["status"] == "error" and error["status_code"] == 401
    assert "already authorized this connection again" in error["error"]
    assert "tell the user" in error["error"] and "Retry" not in error["error"]
    assert len(chat.api.authorizations) == seen + 1  # no retry either

    # The budget is in the stored state: a later turn does not ask again either.
    assert (await chat.state())[f"_adk_reauth_requests:{KEY}"] == 1
    chat.calls(("get_my_profile", {}))
    events = await chat.turn("try once more")
    assert credential_requests(events) == []
    assert "already authorized" in results(events)["get_my_profile"]["error"]


async def test_insufficient_scope_is_a_plain_error_and_the_token_is_kept(chat: Chat) -> None:
    token = await signed_in(chat)
    chat.calls(("get_admin_report", {}))
    events = await chat.turn("the admin report")
    assert credential_requests(events) == []
    error = results(events)["get_admin_report"]
    assert error["status_code"] == 401 and "Retry with adjustments" in error["error"]
    assert chat.api.authorizations[-1] == f"Bearer {token}"  # sent once, not retried
    assert grants(chat.oauth) == ["authorization_code"]  # no refresh

    chat.calls(("get_my_profile", {}))
    assert results(await chat.turn("who am I?")) == {"get_my_profile": PROFILE}
    assert chat.api.authorizations[-1] == f"Bearer {token}"


async def test_a_working_call_refills_the_budget(chat: Chat) -> None:
    old = await signed_in_without_refresh_token(chat)
    chat.revoke(old)
    [request] = credential_requests(await chat.turn("who am I, again?"))
    new = chat.issue()
    assert results(await chat.answer_with_token(request, new)) == {"get_my_profile": PROFILE}
    assert (await chat.state())[f"_adk_reauth_requests:{KEY}"] == 0

    # Hours later the new token expires too: the user is asked again, not told to give up.
    chat.revoke(new)
    chat.calls(("get_my_profile", {}))
    events = await chat.turn("and now?")
    assert results(events) == {"get_my_profile": PENDING}
    assert len(credential_requests(events)) == 1


async def test_an_api_that_always_says_401_is_called_a_bounded_number_of_times(
    chat: Chat,
) -> None:
    await signed_in(chat)
    chat.api.reject_all = True
    seen = len(chat.api.authorizations)

    events = await chat.turn("who am I, again?")
    error = results(events)["get_my_profile"]
    assert error["status_code"] == 401 and "Retry with adjustments" in error["error"]
    assert credential_requests(events) == []
    assert len(chat.api.authorizations) == seen + 2  # the call and one retry
    assert grants(chat.oauth) == ["authorization_code", "refresh_token"]

    # The refreshed token is refused too: no refresh, no consent, one request per call.
    chat.calls(("get_my_profile", {}), ("get_my_profile", {}))
    events = await chat.turn("please try again")
    assert credential_requests(events) == []
    assert len(chat.api.authorizations) == seen + 4
    assert grants(chat.oauth) == ["authorization_code", "refresh_token"]


async def test_a_configured_token_the_api_rejects_is_a_plain_error(
    oauth_server: LiveOAuthServer, files_api: FilesApi
) -> None:
    toolset = OpenAPIToolset(
        spec_dict=files_api.spec(oauth_server),
        auth_credential=AuthCredential(
            auth_type=AuthCredentialTypes.HTTP,
            http=HttpAuth(scheme="bearer", credentials=HttpCredentials(token="static-1")),
        ),
        allow_private_network_access=True,
    )
    runner = Runner(
        app_name="files",
        agent=LlmAgent(name="files_agent", model=scripted(("get_my_profile", {})), tools=[toolset]),
        session_service=InMemorySessionService(),
    )
    events = await Chat(oauth_server, files_api, toolset, runner).turn("who am I?")
    assert credential_requests(events) == []
    assert results(events)["get_my_profile"]["status_code"] == 401
    assert files_api.authorizations == ["Bearer static-1"]
    await toolset.close()


async def test_calls_of_one_response_refresh_the_shared_token_once(chat: Chat) -> None:
    old = await signed_in(chat)
    chat.revoke(old)
    chat.calls(("get_my_profile", {}), ("get_my_profile", {}))
    events = await chat.turn("who am I, twice?")
    answers = [r.response for e in events for r in e.get_function_responses()]
    assert PROFILE in answers and credential_requests(events) == []
    # One refresh: the other call, refused while it ran, is an ordinary error to retry.
    assert grants(chat.oauth) == ["authorization_code", "refresh_token"]
    assert all(a == PROFILE or "Retry with adjustments" in a["error"] for a in answers)
