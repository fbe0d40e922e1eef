"""AuthenticatedFunctionTool and BaseAuthenticatedTool: the credential is found (or
asked for) before the function runs, and reaches it in a hidden ``credential``
parameter; API keys through a Runner, OAuth2 against a real OAuth2 server."""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from pyadk import types
from pyadk.agents import LlmAgent
from pyadk.auth.auth_credential import AuthCredential, AuthCredentialTypes, OAuth2Auth
from pyadk.auth.auth_schemes import APIKey, OAuth2, OAuthFlows
from pyadk.auth.auth_tool import AuthConfig, AuthToolArguments
from pyadk.auth.credential_service import InMemoryCredentialService
from pyadk.events import Event
from pyadk.events.client_requests import REQUEST_EUC_FUNCTION_CALL_NAME
from pyadk.models import LlmRequest
from pyadk.runners import Runner
from pyadk.sessions import InMemorySessionService
from pyadk.testing import FunctionModel, function_call
from pyadk.tools import BaseTool, ToolContext
from pyadk.tools.authenticated_function_tool import AuthenticatedFunctionTool
from pyadk.tools.base_authenticated_tool import BaseAuthenticatedTool

AUTH_TESTS = Path(__file__).resolve().parents[1] / "auth"
if str(AUTH_TESTS) not in sys.path:
    sys.path.insert(0, str(AUTH_TESTS))

from oauth_server import LiveOAuthServer  # noqa: E402

USER = "ann"
WEATHER_KEY = AuthConfig(auth_scheme=APIKey(**{"in": "header", "name": "X-Weather-Key"}))


@pytest.fixture(scope="module")
def _live_oauth_server() -> Iterator[LiveOAuthServer]:
    with LiveOAuthServer() as live:
        live.register("web-app", "web-app-secret-4471")
        live.register("spa", None)  # a public client: PKCE
        yield live


@pytest.fixture
def oauth_server(_live_oauth_server: LiveOAuthServer) -> LiveOAuthServer:
    _live_oauth_server.state.reset()
    return _live_oauth_server


def calling_model(tool_name: str, args: dict[str, Any] | None = None) -> FunctionModel:
    """Calls ``tool_name`` for a user's text, then says what the tool answered."""

    def reply(request: LlmRequest) -> Any:
        part = (request.contents[-1].parts or [])[0]
        if part.function_response is not None:
            return json.dumps(part.function_response.response, sort_keys=True)
        return [function_call(tool_name, args or {})]

    return FunctionModel(reply)


def make_runner(*tools: BaseTool, model: FunctionModel, **services: Any) -> Runner:
    services.setdefault("credential_service", InMemoryCredentialService())
    agent = LlmAgent(name="helper", model=model, tools=list(tools))
    return Runner(app_name="app", agent=agent, session_service=InMemorySessionService(), **services)


async def turn(runner: Runner, message: str | types.Content) -> list[Event]:
    service = runner.session_service
    if await service.get_session(app_name="app", user_id=USER, session_id="s") is None:
        await service.create_session(app_name="app", user_id=USER, session_id="s")
    if isinstance(message, str):
        message = types.Content(role="user", parts=[types.Part(text=message)])
    return [e async for e in runner.run_async(user_id=USER, session_id="s", new_message=message)]


def credential_request(events: list[Event]) -> types.FunctionCall:
    [call] = [
        c
        for e in events
        for c in e.get_function_calls()
        if c.name == REQUEST_EUC_FUNCTION_CALL_NAME
    ]
    return call


def answer(request: types.FunctionCall, credential: dict[str, Any]) -> types.Content:
    """The client's answer: the config it was sent, with the credential filled in."""
    config = json.loads(json.dumps(request.args["authConfig"]))
    config["exchangedAuthCredential"] = credential
    response = types.FunctionResponse(
        id=request.id, name=REQUEST_EUC_FUNCTION_CALL_NAME, response=config
    )
    return types.Content(role="user", parts=[types.Part(function_response=response)])


def api_key(key: str) -> dict[str, Any]:
    return {"authType": "apiKey", "apiKey": key}


class Forecasts:
    """Weather functions that record the key each call received."""

    def __init__(self) -> None:
        self.keys: list[str | None] = []

    def sync_forecast(self, city: str, credential: AuthCredential) -> dict[str, Any]:
        """The weather in a city."""
        self.keys.append(credential.api_key)
        return {"city": city, "sky": "clear"}

    async def async_forecast(
        self, city: str, tool_context: ToolContext, credential: AuthCredential
    ) -> dict[str, Any]:
        """The weather in a city."""
        assert tool_context.function_call_id
        self.keys.append(credential.api_key)
        return {"city": city, "sky": "clear"}


@pytest.mark.parametrize("kind", ["sync", "async"])
async def test_the_function_waits_for_the_key_then_gets_it_and_the_next_turn_reuses_it(
    kind: str,
) -> None:
    forecasts = Forecasts()
    func = forecasts.sync_forecast if kind == "sync" else forecasts.async_forecast
    tool = AuthenticatedFunctionTool(func=func, auth_config=WEATHER_KEY)
    runner = make_runner(tool, model=calling_model(tool.name, {"city": "Oslo"}))

    events = await turn(runner, "weather in Oslo?")
    request = credential_request(events)
    assert forecasts.keys == []  # the function did not run
    held = [r for e in events for r in e.get_function_responses()]
    assert [r.response for r in held] == [{"result": "Pending User Authorization."}]
    arguments = AuthToolArguments.model_validate(request.args)
    assert arguments.function_call_id == held[0].id
    assert request.args["authConfig"]["authScheme"] == {
        "type": "apiKey",
        "in": "header",
        "name": "X-Weather-Key",
    }

    events = await turn(runner, answer(request, api_key("k-1")))
    assert forecasts.keys == ["k-1"]
    [result] = [r for e in events for r in e.get_function_responses()]
    assert result.id == arguments.function_call_id
    assert result.response == {"city": "Oslo", "sky": "clear"}

    # The credential service keeps the key: the next turn does not ask again.
    events = await turn(runner, "and tomorrow?")
    assert not any(
        c.name == REQUEST_EUC_FUNCTION_CALL_NAME for e in events for c in e.get_function_calls()
    )
    assert forecasts.keys == ["k-1", "k-1"]


async def test_credential_and_tool_context_are_hidden_and_cannot_be_forged() -> None:
    forecasts = Forecasts()
    tool = AuthenticatedFunctionTool(func=forecasts.async_forecast, auth_config=WEATHER_KEY)
    declaration = tool._get_declaration()
    assert declaration is not None
    schema = declaration.model_dump(mode="json", exclude_none=True, by_alias=True)
    assert "credential" not in json.dumps(schema) and "tool_context" not in json.dumps(schema)
    assert declaration.description == "The weather in a city."

    # A model that passes its own "credential" argument does not reach the function.
    forged = {"city": "Oslo", "credential": {"authType": "apiKey", "apiKey": "forged"}}
    runner = make_runner(tool, model=calling_model(tool.name, forged))
    request = credential_request(await turn(runner, "weather?"))
    await turn(runner, answer(request, api_key("real")))
    assert forecasts.keys == ["real"]


async def test_a_configured_key_is_used_at_once_and_a_custom_pending_answer() -> None:
    forecasts = Forecasts()
    configured = AuthConfig(
        auth_scheme=WEATHER_KEY.auth_scheme,
        raw_auth_credential=AuthCredential(
            auth_type=AuthCredentialTypes.API_KEY, api_key="dev-key"
        ),
    )
    tool = AuthenticatedFunctionTool(func=forecasts.sync_forecast, auth_config=configured)
    events = await turn(make_runner(tool, model=calling_model(tool.name, {"city": "Rome"})), "?")
    assert forecasts.keys == ["dev-key"]
    assert not any(
        c.name == REQUEST_EUC_FUNCTION_CALL_NAME for e in events for c in e.get_function_calls()
    )

    pending = {"status": "needs_key", "message": "Paste your weather key."}
    tool = AuthenticatedFunctionTool(
        func=forecasts.sync_forecast, auth_config=WEATHER_KEY, response_for_auth_required=pending
    )
    events = await turn(make_runner(tool, model=calling_model(tool.name, {"city": "Rome"})), "?")
    assert [r.response for e in events for r in e.get_function_responses()] == [pending]
    credential_request(events)


async def test_without_auth_config_the_function_runs_with_no_credential(
    caplog: pytest.LogCaptureFixture,
) -> None:
    seen: list[Any] = []

    def lookup(term: str, credential: AuthCredential | None = None) -> str:
        """Looks a term up."""
        seen.append(credential)
        return f"{term}: found"

    with caplog.at_level(logging.WARNING):
        tool = AuthenticatedFunctionTool(func=lookup)
    assert "runs without authentication" in caplog.text
    events = await turn(make_runner(tool, model=calling_model("lookup", {"term": "x"})), "?")
    assert seen == [None]
    assert [r.response for e in events for r in e.get_function_responses()] == [
        {"result": "x: found"}
    ]


async def test_a_function_without_a_credential_parameter_still_waits_for_it() -> None:
    calls: list[str] = []

    def ping() -> str:
        """Pings the service."""
        calls.append("ping")
        return "pong"

    tool = AuthenticatedFunctionTool(func=ping, auth_config=WEATHER_KEY)
    runner = make_runner(tool, model=calling_model("ping"))
    request = credential_request(await turn(runner, "ping"))
    assert calls == []
    await turn(runner, answer(request, api_key("k")))
    assert calls == ["ping"]


class Greeter(BaseAuthenticatedTool):
    """A hand-written authenticated tool."""

    def __init__(self, auth_config: AuthConfig | None) -> None:
        super().__init__(name="greet", description="Greets the user.", auth_config=auth_config)
        self.credentials: list[AuthCredential | None] = []

    def _get_declaration(self) -> types.FunctionDeclaration:
        return types.FunctionDeclaration(name=self.name, description=self.description)

    async def _run_async_impl(
        self, *, args: dict[str, Any], tool_context: ToolContext, credential: AuthCredential
    ) -> Any:
        self.credentials.append(credential)
        return {"greeting": "hello"}


async def test_base_authenticated_tool_runs_its_impl_with_the_credential() -> None:
    greeter = Greeter(WEATHER_KEY)
    runner = make_runner(greeter, model=calling_model("greet"))
    events = await turn(runner, "hi")
    request = credential_request(events)
    assert [r.response for e in events for r in e.get_function_responses()] == [
        {"result": "Pending User Authorization."}
    ]
    await turn(runner, answer(request, api_key("g-1")))
    assert [c.api_key if c else None for c in greeter.credentials] == ["g-1"]

    unauthenticated = Greeter(None)
    await turn(make_runner(unauthenticated, model=calling_model("greet")), "hi")
    assert unauthenticated.credentials == [None]


def oauth_config(server: LiveOAuthServer, client_id: str) -> AuthConfig:
    client = server.state.clients[client_id]
    return AuthConfig(
        auth_scheme=OAuth2(
            flows=OAuthFlows(
                authorizationCode={
                    "authorizationUrl": f"{server.url}/authorize",
                    "tokenUrl": f"{server.url}/token",
                    "scopes": {"read:me": "Read your profile"},
                }
            )
        ),
        raw_auth_credential=AuthCredential(
            auth_type=AuthCredentialTypes.OAUTH2,
            oauth2=OAuth2Auth(
                client_id=client_id,
                client_secret=client.secret,
                redirect_uri=client.redirect_uris[0],
            ),
        ),
    )


@pytest.mark.parametrize("client_id", ["web-app", "spa"])
async def test_oauth2_consent_then_the_function_calls_the_api_with_the_token(
    oauth_server: LiveOAuthServer, client_id: str
) -> None:
    tokens: list[str] = []

    async def my_profile(credential: AuthCredential) -> dict[str, Any]:
        """The signed-in user's profile."""
        assert credential.oauth2 is not None and credential.oauth2.access_token
        tokens.append(credential.oauth2.access_token)
        async with httpx.AsyncClient() as client:
            response = await client.get(
                f"{oauth_server.url}/api/me",
                headers={"Authorization": f"Bearer {credential.oauth2.access_token}"},
            )
        return dict(response.json())

    tool = AuthenticatedFunctionTool(
        func=my_profile,
        auth_config=oauth_config(oauth_server, client_id),
        response_for_auth_required={"pending": True, "message": "Sign in first."},
    )
    runner = make_runner(tool, model=calling_model("my_profile"))
    request = credential_request(await turn(runner, "who am I?"))
    sent = request.args["authConfig"]["exchangedAuthCredential"]["oauth2"]
    assert sent["authUri"].startswith(f"{oauth_server.url}/authorize?")
    assert "clientSecret" not in sent and "codeVerifier" not in sent

    async with httpx.AsyncClient() as browser:  # the user consents
        redirect = (await browser.get(sent["authUri"])).headers["location"]
    exchanged = json.loads(json.dumps(request.args["authConfig"]["exchangedAuthCredential"]))
    exchanged["oauth2"]["authResponseUri"] = redirect
    events = await turn(runner, answer(request, exchanged))
    [result] = [r.response for e in events for r in e.get_function_responses()]
    assert result == {"sub": "user-1", "client_id": client_id, "scope": "read:me"}

    events = await turn(runner, "again")  # the saved token: no new consent
    assert not any(
        c.name == REQUEST_EUC_FUNCTION_CALL_NAME for e in events for c in e.get_function_calls()
    )
    assert len(tokens) == 2 and tokens[0] == tokens[1]
    assert len(oauth_server.state.token_requests) == 1  # one code exchange, no more


async def test_two_calls_needing_one_oauth2_credential_share_the_consent_and_the_code(
    oauth_server: LiveOAuthServer,
) -> None:
    """Calls of one response run at once: one of them trades the code, the other finds
    the token (a code buys one token only)."""
    config = oauth_config(oauth_server, "web-app")
    seen: dict[str, str] = {}

    async def profile(credential: AuthCredential) -> str:
        """Reads the profile."""
        assert credential.oauth2 is not None and credential.oauth2.access_token
        seen["profile"] = credential.oauth2.access_token
        return "profile read"

    async def calendar(credential: AuthCredential) -> str:
        """Reads the calendar."""
        assert credential.oauth2 is not None and credential.oauth2.access_token
        seen["calendar"] = credential.oauth2.access_token
        return "calendar read"

    def reply(request: LlmRequest) -> Any:
        if (request.contents[-1].parts or [])[0].function_response is not None:
            return "done"
        return [function_call("profile"), function_call("calendar")]

    runner = make_runner(
        AuthenticatedFunctionTool(func=profile, auth_config=config),
        AuthenticatedFunctionTool(func=calendar, auth_config=config),
        model=FunctionModel(reply),
    )
    request = credential_request(await turn(runner, "profile and calendar"))
    sent = request.args["authConfig"]["exchangedAuthCredential"]
    async with httpx.AsyncClient() as browser:
        sent["oauth2"]["authResponseUri"] = (await browser.get(sent["oauth2"]["authUri"])).headers[
            "location"
        ]
    events = await turn(runner, answer(request, sent))
    assert sorted(str(r.response) for e in events for r in e.get_function_responses()) == [
        "{'result': 'calendar read'}",
        "{'result': 'profile read'}",
    ]
    assert seen["profile"] == seen["calendar"]
    assert len(oauth_server.state.token_requests) == 1
