"""Tool auth in the UI protocol: a turn whose tool needs the user's credential ends with
``auth_required`` (not a tool call, not a failed tool); the answer, posted over real
HTTP as the next turn's functionResponse, runs the call again and closes it; history
shows the answer as "Provided a credential" / "Signed in", never the secret."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from server_support import LiveServer, read_sse, run_body

from pyadk import types
from pyadk.agents import LlmAgent
from pyadk.auth.auth_credential import AuthCredential, AuthCredentialTypes, OAuth2Auth
from pyadk.auth.auth_schemes import APIKey, HTTPBearer, OAuth2, OAuthFlows
from pyadk.auth.auth_tool import AuthConfig
from pyadk.auth.credential_manager import CredentialManager
from pyadk.events import Event, EventActions
from pyadk.events.client_requests import REQUEST_EUC_FUNCTION_CALL_NAME
from pyadk.models import LlmRequest
from pyadk.server import create_app
from pyadk.server.ui_convert import UiEventConverter
from pyadk.server.ui_events import UI_EVENT_ADAPTER, UiEvent
from pyadk.testing import FunctionModel, TestRunner, function_call
from pyadk.tools import FunctionTool, ToolContext

SECRET = "k-7f3a-very-secret"
API_KEY = AuthConfig(auth_scheme=APIKey(**{"in": "header", "name": "X-Api-Key"}))
BEARER = AuthConfig(auth_scheme=HTTPBearer())
OAUTH = AuthConfig(
    auth_scheme=OAuth2(
        flows=OAuthFlows(
            authorizationCode={
                "authorizationUrl": "http://127.0.0.1:9/authorize",
                "tokenUrl": "http://127.0.0.1:9/token",
                "scopes": {"read:me": "Read your profile"},
            }
        )
    ),
    raw_auth_credential=AuthCredential(
        auth_type=AuthCredentialTypes.OAUTH2,
        oauth2=OAuth2Auth(
            client_id="web-app",
            client_secret="client-secret-never-sent",
            redirect_uri="http://127.0.0.1:9/callback",
        ),
    ),
)


class Weather:
    """``forecast`` needs the user's credential for ``config`` (``keys`` records what it
    ran with); the model calls it, then reports its result."""

    def __init__(self, config: AuthConfig = API_KEY) -> None:
        self.config = config
        self.keys: list[str] = []

    async def forecast(self, city: str, tool_context: ToolContext) -> dict[str, Any]:
        """The weather in a city.

        Args:
          city: the city.
        """
        manager = CredentialManager(self.config)
        credential = await manager.get_auth_credential(tool_context)
        if credential is None:
            await manager.request_credential(tool_context)
            return {"pending": True, "message": "Waiting for your credential."}
        if credential.api_key:
            self.keys.append(credential.api_key)
        elif credential.http is not None:
            self.keys.append(credential.http.credentials.token or "")
        return {"city": city, "sky": "clear"}

    def reply(self, request: LlmRequest) -> Any:
        response = request.contents[-1].parts[0].function_response
        if response is None:
            return function_call("forecast", {"city": "Paris"})
        return f"Forecast: {json.dumps(response.response, sort_keys=True)}"

    def agent(self) -> LlmAgent:
        tool = FunctionTool(self.forecast)
        return LlmAgent(name="weather", model=FunctionModel(self.reply), tools=[tool])


def run_ui(agent: Any, events: list[Any], run_id: str = "r") -> list[UiEvent]:
    converter = UiEventConverter(run_id=run_id, root_agent=agent)
    return [ui for event in events for ui in converter.convert(event)] + converter.finish()


def answer_part(request_id: str, response: Any) -> dict[str, Any]:
    """The answer part as google-adk's clients send it."""
    return {
        "functionResponse": {
            "id": request_id,
            "name": REQUEST_EUC_FUNCTION_CALL_NAME,
            "response": response,
        }
    }


def with_key(asked: dict[str, Any], key: str) -> dict[str, Any]:
    """The authConfig of an ``auth_required`` event, echoed with the key filled in."""
    return {**asked["authConfig"], "exchangedAuthCredential": {"authType": "apiKey", "apiKey": key}}


def answer_content(request_id: str, response: Any) -> types.Content:
    return types.Content.model_validate(
        {"role": "user", "parts": [answer_part(request_id, response)]}
    )


# -- the converter ------------------------------------------------------------------


async def test_a_call_waiting_for_a_key_is_auth_required_not_a_failed_tool() -> None:
    weather = Weather()
    agent = weather.agent()

    ui = run_ui(agent, await TestRunner(agent).run("weather in Paris?"))

    assert [e.type for e in ui] == ["agent_active", "tool_start", "auth_required", "done"]
    start, asked = ui[1], ui[2]
    assert start.type == "tool_start" and asked.type == "auth_required"
    assert (asked.call_id, asked.tool) == (start.call_id, "forecast")
    assert asked.request_id and asked.request_id != start.call_id
    assert (asked.scheme_type, asked.key_name, asked.key_location) == (
        "apiKey",
        "X-Api-Key",
        "header",
    )
    assert (asked.auth_uri, asked.http_scheme) == (None, None)
    assert asked.credential_key == API_KEY.credential_key
    assert asked.auth_config["authScheme"] == {
        "type": "apiKey",
        "in": "header",
        "name": "X-Api-Key",
    }
    assert asked.internal is False and weather.keys == []
    data = asked.to_json_dict()
    assert {k: data[k] for k in ("type", "requestId", "callId", "tool", "schemeType")} == {
        "type": "auth_required",
        "requestId": asked.request_id,
        "callId": start.call_id,
        "tool": "forecast",
        "schemeType": "apiKey",
    }
    assert UI_EVENT_ADAPTER.validate_python(data) == asked
    assert REQUEST_EUC_FUNCTION_CALL_NAME not in str([e.to_json_dict() for e in ui])


async def test_an_oauth2_request_carries_the_sign_in_url_and_no_secret() -> None:
    agent = Weather(OAUTH).agent()

    ui = run_ui(agent, await TestRunner(agent).run("weather?"))

    asked = next(e for e in ui if e.type == "auth_required")
    assert asked.scheme_type == "oauth2" and asked.tool == "forecast"
    assert asked.auth_uri is not None
    assert asked.auth_uri.startswith("http://127.0.0.1:9/authorize?")
    assert "state=" in asked.auth_uri and "client_id=web-app" in asked.auth_uri
    sent = asked.auth_config["exchangedAuthCredential"]["oauth2"]
    assert sent["authUri"] == asked.auth_uri
    assert "client-secret-never-sent" not in json.dumps(asked.to_json_dict())
    assert (asked.key_name, asked.key_location) == (None, None)


async def test_an_http_bearer_request_names_its_scheme() -> None:
    agent = Weather(BEARER).agent()

    ui = run_ui(agent, await TestRunner(agent).run("weather?"))

    asked = next(e for e in ui if e.type == "auth_required")
    assert (asked.scheme_type, asked.http_scheme, asked.auth_uri) == ("http", "bearer", None)


async def test_the_answer_runs_the_call_again_and_history_never_shows_the_key() -> None:
    weather = Weather()
    agent = weather.agent()
    runner = TestRunner(agent)
    first = run_ui(agent, await runner.run("weather in Paris?"), "r1")
    asked = next(e for e in first if e.type == "auth_required")
    config = asked.auth_config

    second = run_ui(
        agent,
        await runner.run(
            answer_content(asked.request_id, with_key({"authConfig": config}, SECRET))
        ),
        "r2",
    )

    assert weather.keys == [SECRET]
    assert [e.type for e in second] == ["agent_active", "tool_end", "content", "final", "done"]
    end = second[1]
    assert end.type == "tool_end" and end.call_id == asked.call_id
    assert (end.tool, end.result, end.is_error) == (
        "forecast",
        {"city": "Paris", "sky": "clear"},
        False,
    )

    session = await runner.session()
    history = UiEventConverter(run_id="history", root_agent=agent)
    ui = [e for event in session.events for e in history.convert(event)]
    users = [e for e in ui if e.type == "user_message"]
    assert [e.text for e in users] == ["weather in Paris?", "Provided a credential"]
    assert users[0].credentials == []
    assert users[1].to_json_dict()["credentials"] == [
        {
            "requestId": asked.request_id,
            "callId": asked.call_id,
            "tool": "forecast",
            "schemeType": "apiKey",
            "signedIn": False,
        }
    ]
    order = [e.type for e in ui]
    assert order.count("tool_end") == 1  # the placeholder result is no end
    assert order.index("auth_required") < order.index("user_message", 1) < order.index("tool_end")
    assert SECRET not in json.dumps([e.to_json_dict() for e in ui])


async def test_an_oauth2_answer_is_signed_in() -> None:
    agent = Weather(OAUTH).agent()
    converter = UiEventConverter(run_id="r", root_agent=agent)
    events = await TestRunner(agent).run("weather?")
    asked = next(
        e for event in events for e in converter.convert(event) if e.type == "auth_required"
    )
    config = json.loads(json.dumps(asked.auth_config))
    redirect = "http://127.0.0.1:9/callback?code=the-code-qz7&state=s"  # no hex id can hold it
    config["exchangedAuthCredential"]["oauth2"]["authResponseUri"] = redirect
    stored = Event(author="user", content=answer_content(asked.request_id, config))

    [user] = converter.convert(stored)
    # a converter that did not see the request reads the scheme from the answer
    [later] = UiEventConverter(run_id="r2", root_agent=agent).convert(stored)

    assert user.type == "user_message" and later.type == "user_message"
    assert user.text == later.text == "Signed in"
    assert [(c.call_id, c.tool, c.scheme_type, c.signed_in) for c in user.credentials] == [
        (asked.call_id, "forecast", "oauth2", True)
    ]
    assert [(c.call_id, c.tool, c.scheme_type, c.signed_in) for c in later.credentials] == [
        (None, None, "oauth2", True)
    ]
    assert "the-code-qz7" not in json.dumps([user.to_json_dict(), later.to_json_dict()])


def test_a_credential_in_a_state_change_is_hidden() -> None:
    token = AuthCredential(
        auth_type=AuthCredentialTypes.OAUTH2, oauth2=OAuth2Auth(access_token="at-secret")
    )
    delta = {
        "temp:adk_oauth2_x": token,  # the answer traded for a token, for this turn
        "adk_saved": token.model_dump(mode="json"),  # SessionStateCredentialService
        "city": "Paris",
    }
    event = Event(author="weather", actions=EventActions(state_delta=delta))

    [state] = UiEventConverter(run_id="r").convert(event)[1:]

    assert state.type == "thinking" and state.kind == "state"
    assert state.data == {
        "temp:adk_oauth2_x": "(credential hidden)",
        "adk_saved": "(credential hidden)",
        "city": "Paris",
    }
    assert "at-secret" not in json.dumps(state.to_json_dict())


# -- over HTTP ----------------------------------------------------------------------


@pytest.fixture
def weather() -> Weather:
    return Weather()


@pytest.fixture
def client(serve: Callable[[Any], LiveServer], weather: Weather) -> httpx.Client:
    client = serve(create_app(agents={"weather": weather.agent()})).client()
    client.post("/apps/weather/users/alice/sessions/s1")
    return client


def post_turn(client: httpx.Client, parts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    body = run_body("weather", "alice", "s1", "", newMessage={"role": "user", "parts": parts})
    with client.stream("POST", "/run_ui_events", json=body) as response:
        assert response.status_code == 200
        return [m.json() for m in read_sse(response.iter_lines()).messages]


def test_the_first_turn_asks_and_the_key_runs_the_tool(
    client: httpx.Client, weather: Weather
) -> None:
    first = post_turn(client, [{"text": "weather in Paris?"}])

    assert [e["type"] for e in first] == ["agent_active", "tool_start", "auth_required", "done"]
    start, asked = first[1], first[2]
    assert {k: asked[k] for k in ("callId", "tool", "schemeType", "keyName", "keyLocation")} == {
        "callId": start["callId"],
        "tool": "forecast",
        "schemeType": "apiKey",
        "keyName": "X-Api-Key",
        "keyLocation": "header",
    }
    assert weather.keys == []

    second = post_turn(client, [answer_part(asked["requestId"], with_key(asked, SECRET))])

    assert weather.keys == [SECRET]
    assert [e["type"] for e in second] == ["agent_active", "tool_end", "content", "final", "done"]
    assert (second[1]["callId"], second[1]["result"]) == (
        start["callId"],
        {"city": "Paris", "sky": "clear"},
    )
    history = client.get("/apps/weather/users/alice/sessions/s1/ui-events").json()
    assert [e["text"] for e in history if e["type"] == "user_message"] == [
        "weather in Paris?",
        "Provided a credential",
    ]
    assert SECRET not in json.dumps(history)


def test_a_bare_key_is_accepted(client: httpx.Client, weather: Weather) -> None:
    asked = next(e for e in post_turn(client, [{"text": "hi"}]) if e["type"] == "auth_required")

    second = post_turn(client, [answer_part(asked["requestId"], {"response": SECRET})])

    assert weather.keys == [SECRET]
    assert second[-1]["finalText"] == 'Forecast: {"city": "Paris", "sky": "clear"}'


@pytest.mark.parametrize(
    "credential",
    [
        {"authType": "http", "http": {"scheme": "bearer", "credentials": {"token": "t"}}},
        {"authType": "apiKey"},  # no key
    ],
    ids=["wrong-kind", "empty"],
)
def test_an_answer_that_does_not_fit_is_a_400_and_nothing_is_written(
    client: httpx.Client, weather: Weather, credential: dict[str, Any]
) -> None:
    asked = next(e for e in post_turn(client, [{"text": "hi"}]) if e["type"] == "auth_required")
    before = client.get("/apps/weather/users/alice/sessions/s1").json()["events"]
    answer = {**asked["authConfig"], "exchangedAuthCredential": credential}
    body = run_body(
        "weather",
        "alice",
        "s1",
        "",
        newMessage={"role": "user", "parts": [answer_part(asked["requestId"], answer)]},
    )

    response = client.post("/run_ui_events", json=body)

    assert response.status_code == 400
    assert asked["requestId"] in response.json()["detail"]
    after = client.get("/apps/weather/users/alice/sessions/s1").json()["events"]
    assert len(after) == len(before) and weather.keys == []


def test_protocol_lists_auth_required(client: httpx.Client) -> None:
    assert "auth_required" in client.get("/ui-protocol").json()["types"]
