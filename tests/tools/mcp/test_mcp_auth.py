"""McpToolset with auth_scheme: a configured credential goes in the connection's
headers; a missing one is asked of the user before the tools are listed (the agent
pauses with adk_request_credential), then saved in the credential service."""

from __future__ import annotations

from typing import Any

import pytest

from pyadk import types
from pyadk.agents import LlmAgent
from pyadk.auth.auth_credential import (
    AuthCredential,
    AuthCredentialTypes,
    HttpAuth,
    HttpCredentials,
)
from pyadk.auth.auth_schemes import HTTPBearer
from pyadk.auth.credential_service import InMemoryCredentialService
from pyadk.events.client_requests import REQUEST_EUC_FUNCTION_CALL_NAME
from pyadk.runners import Runner
from pyadk.sessions import InMemorySessionService
from pyadk.testing import FunctionModel, function_call
from pyadk.tools.mcp_tool import McpToolset, StreamableHTTPConnectionParams


def bearer(token: str) -> AuthCredential:
    return AuthCredential(
        auth_type=AuthCredentialTypes.HTTP,
        http=HttpAuth(scheme="bearer", credentials=HttpCredentials(token=token)),
    )


def reply(request: Any) -> Any:
    part = request.contents[-1].parts[0]
    if part.function_response is not None:
        return f"header: {part.function_response.response['structuredContent']['result']}"
    return [function_call("auth_header")]


async def run_turn(runner: Runner, message: types.Content | str) -> list[Any]:
    service = runner.session_service
    if await service.get_session(app_name="app", user_id="u", session_id="s") is None:
        await service.create_session(app_name="app", user_id="u", session_id="s")
    if isinstance(message, str):
        message = types.Content(role="user", parts=[types.Part(text=message)])
    return [e async for e in runner.run_async(user_id="u", session_id="s", new_message=message)]


def texts(events: list[Any]) -> list[str]:
    return [e.content.parts[0].text for e in events if e.content and e.content.parts[0].text]


async def test_a_configured_token_goes_in_the_connection_headers(http_url: str) -> None:
    toolset = McpToolset(
        connection_params=StreamableHTTPConnectionParams(url=http_url, timeout=30),
        auth_scheme=HTTPBearer(),
        auth_credential=bearer("dev-token"),
    )
    agent = LlmAgent(name="remote", model=FunctionModel(reply), tools=[toolset])
    runner = Runner(app_name="app", agent=agent, session_service=InMemorySessionService())
    try:
        events = await run_turn(runner, "who am I?")
    finally:
        await toolset.close()
    assert texts(events) == ["header: Bearer dev-token"]


async def test_a_missing_token_is_asked_for_before_the_tools_are_listed(http_url: str) -> None:
    toolset = McpToolset(
        connection_params=StreamableHTTPConnectionParams(url=http_url, timeout=30),
        auth_scheme=HTTPBearer(),
        credential_key="remote-token",
    )
    calls: list[Any] = []

    def counting(request: Any) -> Any:
        calls.append(request)
        return reply(request)

    agent = LlmAgent(name="remote", model=FunctionModel(counting), tools=[toolset])
    runner = Runner(
        app_name="app",
        agent=agent,
        session_service=InMemorySessionService(),
        credential_service=InMemoryCredentialService(),
    )
    try:
        [request_event] = await run_turn(runner, "who am I?")
        [request] = request_event.get_function_calls()
        assert request.name == REQUEST_EUC_FUNCTION_CALL_NAME
        assert request.args["functionCallId"] == "_adk_toolset_auth_McpToolset"
        assert request.args["authConfig"]["credentialKey"] == "remote-token"
        assert request_event.long_running_tool_ids == {request.id} and calls == []

        answer = types.FunctionResponse(
            id=request.id, name=REQUEST_EUC_FUNCTION_CALL_NAME, response={"response": "user-tok"}
        )
        events = await run_turn(
            runner, types.Content(role="user", parts=[types.Part(function_response=answer)])
        )
        assert texts(events) == ["header: Bearer user-tok"]
        assert calls[0].contents[-1].parts[0].text == "who am I?"  # the question, answered now

        # Saved in the credential service: the next turn needs no answer.
        events = await run_turn(runner, "again")
        assert texts(events) == ["header: Bearer user-tok"]
    finally:
        await toolset.close()


def test_auth_needs_an_http_server(stdio_params: Any) -> None:
    with pytest.raises(ValueError, match="auth_scheme needs an HTTP server"):
        McpToolset(connection_params=stdio_params, auth_scheme=HTTPBearer())
