"""A tool behind OAuth2, end to end against a real OAuth2 server on 127.0.0.1: the
agent asks for consent with an authorization URI, the "browser" follows it, the client
answers with the redirect, the tool trades the code for a token and calls the API."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import parse_qs, urlparse

import httpx
import pytest
from oauth_server import LiveOAuthServer
from test_tool_auth_flow import USER, answer, credential_requests, make_runner, turn

from pyadk.agents import LlmAgent
from pyadk.auth.auth_credential import AuthCredential, AuthCredentialTypes, OAuth2Auth
from pyadk.auth.auth_schemes import OAuth2, OAuthFlows
from pyadk.auth.auth_tool import AuthConfig
from pyadk.auth.credential_manager import CredentialManager
from pyadk.flows.tool_auth import ToolAuthError
from pyadk.models import LlmRequest
from pyadk.testing import FunctionModel, function_call
from pyadk.tools import FunctionTool, ToolContext


class Profile:
    """A tool reading the user's profile from the server's protected API."""

    def __init__(self, server: LiveOAuthServer, client_id: str) -> None:
        client = server.state.clients[client_id]
        self.server = server
        self.secret = client.secret
        self.config = AuthConfig(
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
        self.tokens: list[str] = []

    async def my_profile(self, tool_context: ToolContext) -> dict[str, Any]:
        """The signed-in user's profile."""
        manager = CredentialManager(self.config)
        credential = await manager.get_auth_credential(tool_context)
        if credential is None:
            await manager.request_credential(tool_context)
            return {"pending": True, "message": "Sign in to continue."}
        assert credential.oauth2 is not None and credential.oauth2.access_token
        token = credential.oauth2.access_token
        self.tokens.append(token)
        async with httpx.AsyncClient() as client:
            response = await client.get(
                f"{self.server.url}/api/me", headers={"Authorization": f"Bearer {token}"}
            )
        return dict(response.json())

    def agent(self) -> LlmAgent:
        def reply(request: LlmRequest) -> Any:
            part = request.contents[-1].parts[0]
            if part.function_response is not None:
                return json.dumps(part.function_response.response, sort_keys=True)
            return [function_call("my_profile")]

        return LlmAgent(
            name="assistant", model=FunctionModel(reply), tools=[FunctionTool(self.my_profile)]
        )


async def consent(auth_uri: str) -> str:
    """The user consents in a browser: the redirect URI the browser lands on."""
    async with httpx.AsyncClient() as client:
        response = await client.get(auth_uri, follow_redirects=False)
    assert response.status_code in (302, 303, 307), response.text
    return response.headers["location"]


def with_redirect(request_args: dict[str, Any], redirect: str) -> dict[str, Any]:
    """The client's answer: the config it was sent, the redirect filled in."""
    config = json.loads(json.dumps(request_args["authConfig"]))
    config["exchangedAuthCredential"]["oauth2"]["authResponseUri"] = redirect
    return config


@pytest.mark.parametrize("client_id", ["web-app", "spa"])  # confidential, public (PKCE)
async def test_consent_code_exchange_and_api_call(
    oauth_server: LiveOAuthServer, client_id: str
) -> None:
    profile = Profile(oauth_server, client_id)
    runner = make_runner(profile.agent())
    events = await turn(runner, "who am I?")
    [request] = credential_requests(events[-1])
    sent = request.args["authConfig"]["exchangedAuthCredential"]["oauth2"]
    assert sent["authUri"].startswith(f"{oauth_server.url}/authorize?")
    assert "codeVerifier" not in sent and "clientSecret" not in sent
    if profile.secret:
        stored = await runner.session_service.get_session(
            app_name="app", user_id=USER, session_id="s1"
        )
        assert profile.secret not in json.dumps(stored.model_dump(mode="json"))

    redirect = await consent(sent["authUri"])
    result, summary = await turn(runner, answer(request, with_redirect(request.args, redirect)))
    # Neither the code nor the token it bought is in an event or in the stored session.
    code = parse_qs(urlparse(redirect).query)["code"][0]
    token = profile.tokens[0]
    stored = await runner.session_service.get_session(app_name="app", user_id=USER, session_id="s1")
    for text in (
        json.dumps([e.model_dump(mode="json") for e in (result, summary)], default=str),
        json.dumps(stored.model_dump(mode="json"), default=str),
    ):
        assert code not in text and token not in text
    assert result.get_function_responses()[0].response == {
        "sub": "user-1",
        "client_id": client_id,
        "scope": "read:me",
    }
    assert '"sub": "user-1"' in summary.content.parts[0].text

    # The token was saved: the next turn calls the API without asking again.
    events = await turn(runner, "again")
    assert not any(credential_requests(e) for e in events)
    assert len(profile.tokens) == 2 and profile.tokens[0] == profile.tokens[1]


async def test_a_redirect_with_another_state_is_refused(oauth_server: LiveOAuthServer) -> None:
    profile = Profile(oauth_server, "web-app")
    runner = make_runner(profile.agent())
    [request] = credential_requests((await turn(runner, "who am I?"))[-1])
    redirect = await consent(
        request.args["authConfig"]["exchangedAuthCredential"]["oauth2"]["authUri"]
    )
    forged = redirect.replace("state=", "state=forged")
    with pytest.raises(ToolAuthError, match="state"):
        await turn(runner, answer(request, with_redirect(request.args, forged)))
    assert profile.tokens == []


async def test_get_auth_response_trades_the_code_for_a_token(oauth_server: LiveOAuthServer) -> None:
    """google-adk's synchronous way: the tool reads the answer and gets a token."""
    profile = Profile(oauth_server, "web-app")
    tokens: list[str | None] = []

    def my_profile(tool_context: ToolContext) -> dict[str, Any]:
        """The signed-in user's profile."""
        credential = tool_context.get_auth_response(profile.config)
        if credential is None:
            tool_context.request_credential(profile.config)
            return {"pending": True}
        assert credential.oauth2 is not None
        tokens.append(credential.oauth2.access_token)
        response = httpx.get(
            f"{oauth_server.url}/api/me",
            headers={"Authorization": f"Bearer {credential.oauth2.access_token}"},
        )
        return dict(response.json())

    agent = profile.agent()
    agent.tools = [FunctionTool(my_profile)]
    runner = make_runner(agent)
    [request] = credential_requests((await turn(runner, "who am I?"))[-1])
    redirect = await consent(
        request.args["authConfig"]["exchangedAuthCredential"]["oauth2"]["authUri"]
    )
    result, _ = await turn(runner, answer(request, with_redirect(request.args, redirect)))
    assert tokens and tokens[0]
    assert result.get_function_responses()[0].response["sub"] == "user-1"


async def test_a_toolset_behind_oauth2_asks_for_consent_before_listing_its_tools(
    oauth_server: LiveOAuthServer,
) -> None:
    """A public client (PKCE): the verifier stays in the session's copy of the request."""
    from pyadk.tools.base_toolset import BaseToolset

    config = Profile(oauth_server, "spa").config
    listed_with: list[str | None] = []

    class ProfileToolset(BaseToolset):
        def get_auth_config(self) -> AuthConfig:
            return config

        async def get_tools(self, readonly_context: Any = None) -> list[Any]:
            credential = readonly_context.get_credential(config.credential_key)
            listed_with.append(credential.oauth2.access_token if credential else None)

            async def whoami(tool_context: ToolContext) -> dict[str, Any]:
                """The signed-in user."""
                token = tool_context.get_credential(config.credential_key).oauth2.access_token
                async with httpx.AsyncClient() as client:
                    response = await client.get(
                        f"{oauth_server.url}/api/me", headers={"Authorization": f"Bearer {token}"}
                    )
                return dict(response.json())

            return [FunctionTool(whoami)]

    def reply(request: LlmRequest) -> Any:
        part = request.contents[-1].parts[0]
        if part.function_response is not None:
            return json.dumps(part.function_response.response, sort_keys=True)
        return [function_call("whoami")]

    agent = LlmAgent(name="assistant", model=FunctionModel(reply), tools=[ProfileToolset()])
    runner = make_runner(agent)
    [request_event] = await turn(runner, "who am I?")
    [request] = credential_requests(request_event)
    assert request.args["functionCallId"] == "_adk_toolset_auth_ProfileToolset"
    assert "codeVerifier" not in request.args["authConfig"]["exchangedAuthCredential"]["oauth2"]
    assert listed_with == []  # nothing listed before the credential came

    redirect = await consent(
        request.args["authConfig"]["exchangedAuthCredential"]["oauth2"]["authUri"]
    )
    events = await turn(runner, answer(request, with_redirect(request.args, redirect)))
    assert events[-1].content.parts[0].text == json.dumps(
        {"client_id": "spa", "scope": "read:me", "sub": "user-1"}, sort_keys=True
    )
    assert listed_with and all(listed_with)
