"""A ToolNode whose tool asks for the end user's credential: the workflow pauses on an
``adk_request_credential`` call, and resumes (the tool runs again with the credential)
when the client answers; a wrong answer is refused before anything runs."""

from __future__ import annotations

import json
from typing import Any

import pytest
from wf_support import outputs

from pyadk import types
from pyadk.auth.auth_schemes import APIKey
from pyadk.auth.auth_tool import AuthConfig, AuthToolArguments
from pyadk.events import Event
from pyadk.events.client_requests import REQUEST_EUC_FUNCTION_CALL_NAME
from pyadk.flows.tool_auth import ToolAuthError
from pyadk.testing import TestRunner
from pyadk.tools import FunctionTool, ToolContext
from pyadk.workflow import START, Context, Workflow

KEY = AuthConfig(auth_scheme=APIKey(**{"in": "header", "name": "X-Api-Key"}))


class Forecast:
    """A tool that needs the user's API key."""

    def __init__(self) -> None:
        self.keys: list[str] = []

    def forecast(self, city: str, tool_context: ToolContext) -> dict[str, Any]:
        """The weather in a city."""
        credential = tool_context.get_auth_response(KEY)
        if credential is None:
            tool_context.request_credential(KEY)
            return {"pending": True}
        assert credential.api_key is not None
        self.keys.append(credential.api_key)
        return {"city": city, "sky": "clear"}


def report(node_input: dict[str, Any]) -> str:
    return f"{node_input['city']} is {node_input['sky']}"


def requests_in(events: list[Event]) -> list[types.FunctionCall]:
    return [
        c
        for e in events
        for c in e.get_function_calls()
        if c.name == REQUEST_EUC_FUNCTION_CALL_NAME
    ]


def answer(request: types.FunctionCall, key: str) -> types.Content:
    config = dict(request.args["authConfig"])
    config["exchangedAuthCredential"] = {"authType": "apiKey", "apiKey": key}
    response = types.FunctionResponse(
        id=request.id, name=REQUEST_EUC_FUNCTION_CALL_NAME, response=config
    )
    return types.Content(role="user", parts=[types.Part(function_response=response)])


def city(node_input: Any) -> dict[str, str]:
    return {"city": "Paris"}


async def test_the_workflow_pauses_for_the_credential_and_resumes_with_it():
    tool = Forecast()
    wf = Workflow(name="wf", edges=[(START, city, FunctionTool(tool.forecast), report)])
    runner = TestRunner(wf)
    first = await runner.run("weather?")
    [request] = requests_in(first)
    assert tool.keys == []
    assert outputs(first) == [("city", {"city": "Paris"})]  # report did not run
    event = next(e for e in first if e.get_function_calls())
    assert event.long_running_tool_ids == {request.id}
    assert event.author == "wf"
    arguments = AuthToolArguments.model_validate(request.args)
    assert arguments.auth_config.credential_key == KEY.credential_key

    resumed = await runner.run(answer(request, "k-42"))
    assert tool.keys == ["k-42"]
    assert outputs(resumed) == [
        ("forecast", {"city": "Paris", "sky": "clear"}),
        ("report", "Paris is clear"),
    ]
    stored = await runner.session()
    assert "k-42" not in json.dumps(stored.model_dump(mode="json"))  # the key is not kept


async def test_a_tool_run_with_ctx_run_node_pauses_and_resumes_too():
    tool = Forecast()

    async def plan(ctx: Context) -> str:
        result = await ctx.run_node(FunctionTool(tool.forecast), {"city": "Oslo"})
        return f"{result['city']}: {result['sky']}"

    runner = TestRunner(Workflow(name="wf", edges=[(START, plan)]))
    [request] = requests_in(await runner.run("go"))
    resumed = await runner.run(answer(request, "k-7"))
    assert tool.keys == ["k-7"]
    assert outputs(resumed)[-1] == ("plan", "Oslo: clear")


async def test_an_answer_that_does_not_fit_is_refused_and_the_workflow_still_waits():
    tool = Forecast()
    wf = Workflow(name="wf", edges=[(START, city, FunctionTool(tool.forecast), report)])
    runner = TestRunner(wf)
    [request] = requests_in(await runner.run("weather?"))
    bad = types.Content(
        role="user",
        parts=[
            types.Part(
                function_response=types.FunctionResponse(
                    id=request.id,
                    name=REQUEST_EUC_FUNCTION_CALL_NAME,
                    response={"authScheme": {"type": "apiKey"}},
                )
            )
        ],
    )
    with pytest.raises(ToolAuthError, match="holds no credential"):
        await runner.run(bad)
    assert tool.keys == []
    resumed = await runner.run(answer(request, "k-1"))
    assert outputs(resumed)[-1] == ("report", "Paris is clear")


async def test_a_tool_that_asks_then_fails_does_not_wait():
    from pyadk.plugins import BasePlugin

    class Recover(BasePlugin):
        async def on_tool_error_callback(self, **kwargs: Any) -> dict[str, str]:
            return {"error": str(kwargs["error"])}

    def flaky(city: str, tool_context: ToolContext) -> str:
        """Asks for a key, then breaks."""
        tool_context.request_credential(KEY)
        raise RuntimeError("service down")

    wf = Workflow(name="wf", edges=[(START, city, FunctionTool(flaky))])
    events = await TestRunner(wf, plugins=[Recover(name="recover")]).run("go")
    assert requests_in(events) == []
    assert outputs(events)[-1] == ("flaky", {"error": "service down"})
