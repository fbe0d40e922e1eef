"""Tools that need an end user's credential: the ``adk_request_credential`` request
that pauses the agent, the client's answer checked against the stored request, the
calls run again with the credential, and the credential service between turns."""

from __future__ import annotations

import json
from pathlib import Path
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
from pyadk.auth.auth_schemes import APIKey, HTTPBearer
from pyadk.auth.auth_tool import AuthConfig, AuthToolArguments
from pyadk.auth.credential_manager import CredentialManager
from pyadk.auth.credential_service import (
    InMemoryCredentialService,
    SessionStateCredentialService,
)
from pyadk.events import Event
from pyadk.events.client_requests import REQUEST_EUC_FUNCTION_CALL_NAME
from pyadk.events.tool_confirmation import (
    REQUEST_CONFIRMATION_FUNCTION_CALL_NAME as REQUEST_CONFIRMATION_NAME,
)
from pyadk.flows.tool_auth import ToolAuthError
from pyadk.models import LlmRequest
from pyadk.runners import Runner
from pyadk.sessions import InMemorySessionService
from pyadk.sessions.sqlite_session_service import SqliteSessionService
from pyadk.testing import FunctionModel, function_call
from pyadk.tools import FunctionTool, ToolContext

WEATHER_KEY = AuthConfig(auth_scheme=APIKey(**{"in": "header", "name": "X-Api-Key"}))
"""An API key the user must give: nothing configured by the developer."""

USER = "alice"


class Weather:
    """A tool that needs the user's API key, and a model that calls it (once per city)
    and then reports what it answered."""

    def __init__(self, *cities: str, use_manager: bool = True) -> None:
        self.cities = cities or ("Paris",)
        self.use_manager = use_manager
        self.keys_used: list[str] = []
        self.requests: list[LlmRequest] = []

    async def forecast(self, city: str, tool_context: ToolContext) -> dict[str, Any]:
        """The weather in a city."""
        if self.use_manager:
            credential = await CredentialManager(WEATHER_KEY).get_auth_credential(tool_context)
        else:
            credential = tool_context.get_auth_response(WEATHER_KEY)
        if credential is None:
            tool_context.request_credential(WEATHER_KEY)
            return {"pending": True, "message": "Waiting for your API key."}
        assert credential.api_key is not None
        self.keys_used.append(credential.api_key)
        return {"city": city, "sky": "clear"}

    def reply(self, request: LlmRequest) -> Any:
        self.requests.append(request)
        last = request.contents[-1].parts or []
        responses = [p.function_response for p in last if p.function_response is not None]
        if responses:
            return "; ".join(json.dumps(r.response, sort_keys=True) for r in responses)
        return [function_call("forecast", {"city": c}) for c in self.cities]

    def agent(self) -> LlmAgent:
        return LlmAgent(
            name="weather", model=FunctionModel(self.reply), tools=[FunctionTool(self.forecast)]
        )


def make_runner(agent: LlmAgent, **services: Any) -> Runner:
    services.setdefault("session_service", InMemorySessionService())
    services.setdefault("credential_service", InMemoryCredentialService())
    return Runner(app_name="app", agent=agent, **services)


async def turn(runner: Runner, message: str | types.Content, session_id: str = "s1") -> list[Event]:
    service = runner.session_service
    if await service.get_session(app_name="app", user_id=USER, session_id=session_id) is None:
        await service.create_session(app_name="app", user_id=USER, session_id=session_id)
    if isinstance(message, str):
        message = types.Content(role="user", parts=[types.Part(text=message)])
    return [
        event
        async for event in runner.run_async(
            user_id=USER, session_id=session_id, new_message=message
        )
    ]


def credential_requests(event: Event) -> list[types.FunctionCall]:
    return [c for c in event.get_function_calls() if c.name == REQUEST_EUC_FUNCTION_CALL_NAME]


def answer(request: types.FunctionCall, response: Any) -> types.Content:
    """The user's message answering ``request`` with ``response``."""
    part = types.Part(
        function_response=types.FunctionResponse(
            id=request.id, name=REQUEST_EUC_FUNCTION_CALL_NAME, response=response
        )
    )
    return types.Content(role="user", parts=[part])


def with_key(request: types.FunctionCall, key: str) -> dict[str, Any]:
    """The client's usual answer: the config it was sent, with the credential filled in."""
    config = dict(request.args["authConfig"])
    config["exchangedAuthCredential"] = {"authType": "apiKey", "apiKey": key}
    return config


async def test_a_call_waits_for_the_users_key_then_runs_again_with_it() -> None:
    weather = Weather()
    runner = make_runner(weather.agent())
    call, held, request_event = await turn(runner, "weather in Paris?")
    assert weather.keys_used == [] and len(weather.requests) == 1
    assert held.content.parts[0].function_response.response["pending"] is True
    [request] = credential_requests(request_event)
    assert request_event.long_running_tool_ids == {request.id}
    assert request_event.is_final_response()
    arguments = AuthToolArguments.model_validate(request.args)
    assert arguments.function_call_id == call.get_function_calls()[0].id
    assert arguments.auth_config.credential_key == WEATHER_KEY.credential_key
    assert request.args["authConfig"]["authScheme"] == {
        "type": "apiKey",
        "in": "header",
        "name": "X-Api-Key",
    }

    result, summary = await turn(runner, answer(request, with_key(request, "k-123")))
    assert weather.keys_used == ["k-123"]
    # The session keeps the answer without the key; no event carries it either.
    stored = await runner.session_service.get_session(app_name="app", user_id=USER, session_id="s1")
    assert "k-123" not in json.dumps(stored.model_dump(mode="json"))
    assert "k-123" not in json.dumps([e.model_dump(mode="json") for e in (result, summary)])
    [stored_answer] = stored.events[-3].get_function_responses()
    assert stored_answer.response["exchangedAuthCredential"]["apiKey"] == "(redacted)"
    assert result.get_function_responses()[0].id == arguments.function_call_id
    assert summary.content.parts[0].text == '{"city": "Paris", "sky": "clear"}'
    # The model never sees the credential traffic, only its call and the real result.
    seen = [
        part.function_call.name if part.function_call else part.function_response.response
        for content in weather.requests[-1].contents[1:]
        for part in content.parts or []
    ]
    assert seen == ["forecast", {"city": "Paris", "sky": "clear"}]

    # The credential service keeps the key: the next turn needs no new answer.
    weather.keys_used.clear()
    events = await turn(runner, "and tomorrow?")
    assert weather.keys_used == ["k-123"]
    assert not any(credential_requests(e) for e in events)


async def test_the_answer_is_used_once_and_a_resent_answer_runs_nothing() -> None:
    weather = Weather()
    runner = make_runner(weather.agent(), credential_service=None)
    [request] = credential_requests((await turn(runner, "weather?"))[-1])
    await turn(runner, answer(request, with_key(request, "k-1")))
    assert weather.keys_used == ["k-1"]
    assert await turn(runner, answer(request, with_key(request, "k-1"))) == []
    assert weather.keys_used == ["k-1"]
    # Without a credential service, a later turn asks again.
    events = await turn(runner, "again")
    assert credential_requests(events[-1])


async def test_get_auth_response_reads_the_answer_and_accepts_a_bare_key() -> None:
    weather = Weather(use_manager=False)
    runner = make_runner(weather.agent())
    [request] = credential_requests((await turn(runner, "weather?"))[-1])
    await turn(runner, answer(request, {"response": "plain-key"}))  # a wrapped value
    assert weather.keys_used == ["plain-key"]


async def test_calls_needing_the_same_credential_share_one_request() -> None:
    weather = Weather("Paris", "Rome")
    runner = make_runner(weather.agent())
    events = await turn(runner, "weather in Paris and Rome?")
    [request] = credential_requests(events[-1])
    result, _ = await turn(runner, answer(request, with_key(request, "k-9")))
    assert weather.keys_used == ["k-9", "k-9"]
    assert [r.response["city"] for r in result.get_function_responses()] == ["Paris", "Rome"]


@pytest.mark.parametrize(
    ("response", "error"),
    [
        (
            {"authType": "http", "http": {"scheme": "bearer", "credentials": {"token": "t"}}},
            "apiKey",
        ),
        ({"authScheme": {"type": "apiKey"}}, "holds no credential"),
        ({"authScheme": 5}, "Invalid answer"),
        ({"response": [1, 2]}, "Not a credential"),
    ],
)
async def test_an_answer_that_does_not_fit_the_request_is_refused_before_it_is_stored(
    response: Any, error: str
) -> None:
    weather = Weather()
    runner = make_runner(weather.agent())
    [request] = credential_requests((await turn(runner, "weather?"))[-1])
    stored = await runner.session_service.get_session(app_name="app", user_id=USER, session_id="s1")
    with pytest.raises(ToolAuthError, match=error):
        await turn(runner, answer(request, response))
    after = await runner.session_service.get_session(app_name="app", user_id=USER, session_id="s1")
    assert len(after.events) == len(stored.events) and weather.keys_used == []


async def test_an_answer_to_no_request_is_refused() -> None:
    runner = make_runner(Weather().agent())
    await turn(runner, "weather?")
    fake = types.FunctionCall(id="adk-made-up", name=REQUEST_EUC_FUNCTION_CALL_NAME, args={})
    with pytest.raises(ToolAuthError, match="No credential request 'adk-made-up'"):
        await turn(runner, answer(fake, {"response": "key"}))


async def test_configured_secrets_never_reach_the_client_or_the_session(tmp_path: Path) -> None:
    """A bearer scheme whose raw credential holds the developer's token: the tool can use
    it at once, and a request for a user token carries nothing of it."""
    secret = "dev-secret-token-77"
    configured = AuthConfig(
        auth_scheme=HTTPBearer(),
        raw_auth_credential=AuthCredential(
            auth_type=AuthCredentialTypes.HTTP,
            http=HttpAuth(scheme="bearer", credentials=HttpCredentials(token=secret)),
        ),
        credential_key="dev-bearer",
    )
    used: list[str | None] = []

    async def call_api(tool_context: ToolContext) -> dict[str, Any]:
        """Calls the API."""
        manager = CredentialManager(configured)
        credential = await manager.get_auth_credential(tool_context)
        assert credential is not None and credential.http is not None
        used.append(credential.http.credentials.token)
        tool_context.request_credential(configured)  # asks for a user token too
        return {"pending": True}

    def reply(request: LlmRequest) -> Any:
        if request.contents[-1].parts[0].function_response:
            return "done"
        return [function_call("call_api")]

    agent = LlmAgent(name="api", model=FunctionModel(reply), tools=[FunctionTool(call_api)])
    service = SqliteSessionService(str(tmp_path / "s.db"))
    runner = make_runner(agent, session_service=service)
    events = await turn(runner, "go")
    assert used == [secret]
    [request] = credential_requests(events[-1])
    assert request.args["authConfig"]["credentialKey"] == "dev-bearer"
    stored = await service.get_session(app_name="app", user_id=USER, session_id="s1")
    assert secret not in json.dumps(stored.model_dump(mode="json"))
    assert secret not in json.dumps(request.args)


async def test_a_stored_request_survives_a_restart_on_sqlite(tmp_path: Path) -> None:
    path = str(tmp_path / "sessions.db")
    weather = Weather()
    runner = make_runner(weather.agent(), session_service=SqliteSessionService(path))
    [request] = credential_requests((await turn(runner, "weather?"))[-1])
    # A new process: new services on the same file (the request is read back as JSON).
    restarted = make_runner(weather.agent(), session_service=SqliteSessionService(path))
    result, _ = await turn(restarted, answer(request, with_key(request, "k-db")))
    assert weather.keys_used == ["k-db"]
    assert result.get_function_responses()[0].response == {"city": "Paris", "sky": "clear"}


async def test_session_state_credential_service_keeps_the_key_in_state() -> None:
    weather = Weather()
    runner = make_runner(weather.agent(), credential_service=SessionStateCredentialService())
    [request] = credential_requests((await turn(runner, "weather?"))[-1])
    await turn(runner, answer(request, with_key(request, "k-state")))
    session = await runner.session_service.get_session(
        app_name="app", user_id=USER, session_id="s1"
    )
    assert session.state[WEATHER_KEY.credential_key] == {
        "auth_type": "apiKey",
        "api_key": "k-state",
    }


def test_credential_keys_are_stable_and_ignore_per_consent_fields() -> None:
    first = AuthConfig(auth_scheme=APIKey(**{"in": "header", "name": "X-Api-Key"}))
    again = AuthConfig(auth_scheme=APIKey(**{"name": "X-Api-Key", "in": "header"}))
    other = AuthConfig(auth_scheme=APIKey(**{"in": "query", "name": "key"}))
    assert first.credential_key == again.credential_key != other.credential_key
    assert first.credential_key.startswith("adk_apiKey_")
    named = AuthConfig(
        auth_scheme=APIKey(**{"in": "header", "name": "k", "credential_key": "mine"})
    )
    assert named.credential_key == "mine"


async def test_request_credential_outside_a_tool_call_is_an_error() -> None:
    captured: list[str] = []

    def before(callback_context: Any) -> None:
        context = ToolContext(callback_context._invocation_context)
        with pytest.raises(ValueError, match="function_call_id"):
            context.request_credential(WEATHER_KEY)
        captured.append("checked")

    agent = LlmAgent(name="a", model=FunctionModel(lambda r: "hi"), before_agent_callback=before)
    await turn(make_runner(agent), "hi")
    assert captured == ["checked"]


async def test_load_credential_without_a_service_names_the_runner_option() -> None:
    seen: list[str] = []

    async def tool(tool_context: ToolContext) -> str:
        """A tool."""
        try:
            await tool_context.load_credential(WEATHER_KEY)
        except ValueError as error:
            seen.append(str(error))
        return "ok"

    def reply(request: LlmRequest) -> Any:
        return (
            "done" if request.contents[-1].parts[0].function_response else [function_call("tool")]
        )

    agent = LlmAgent(name="a", model=FunctionModel(reply), tools=[FunctionTool(tool)])
    await turn(make_runner(agent, credential_service=None), "go")
    assert seen and "credential_service=" in seen[0]


async def test_a_workflow_waits_for_the_credential_and_goes_on_after_it() -> None:
    from pyadk.agents import SequentialAgent

    weather = Weather()
    after = LlmAgent(name="reporter", model=FunctionModel(lambda r: "report written"))
    flow = SequentialAgent(name="flow", sub_agents=[weather.agent(), after])
    runner = make_runner(flow)
    events = await turn(runner, "weather then report")
    [request] = credential_requests(events[-1])
    assert all(e.author != "reporter" for e in events)  # the sequence paused
    events = await turn(runner, answer(request, with_key(request, "k-wf")))
    assert weather.keys_used == ["k-wf"]
    said = [
        (e.author, e.content.parts[0].text) for e in events if e.content and e.content.parts[0].text
    ]
    assert said == [
        ("weather", '{"city": "Paris", "sky": "clear"}'),
        ("reporter", "report written"),
    ]


async def test_an_approved_call_that_then_needs_a_key_is_not_asked_for_approval_again() -> None:
    weather = Weather()
    agent = LlmAgent(
        name="weather",
        model=FunctionModel(weather.reply),
        tools=[FunctionTool(weather.forecast, require_confirmation=True)],
    )
    runner = make_runner(agent)
    *_, approval_event = await turn(runner, "weather in Paris?")
    [approval] = [
        c for c in approval_event.get_function_calls() if c.name == REQUEST_CONFIRMATION_NAME
    ]
    approve = types.FunctionResponse(
        id=approval.id, name=REQUEST_CONFIRMATION_NAME, response={"confirmed": True}
    )
    *_, request_event = await turn(
        runner, types.Content(role="user", parts=[types.Part(function_response=approve)])
    )
    [request] = credential_requests(request_event)
    assert weather.keys_used == []

    events = await turn(runner, answer(request, with_key(request, "k-9")))
    assert weather.keys_used == ["k-9"]
    assert not any(
        c.name == REQUEST_CONFIRMATION_NAME for e in events for c in e.get_function_calls()
    )
    assert events[-1].content.parts[0].text == '{"city": "Paris", "sky": "clear"}'
