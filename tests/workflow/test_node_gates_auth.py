"""A function node with ``auth_config``: unless state holds the credential, it waits on
an ``adk_request_credential`` call; the answer is checked against the request, kept in
``temp:`` state, and the function reads it with ``AuthHandler.get_auth_response``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from node_gates_support import (
    api_key_answer,
    approval,
    approval_requests,
    calls_named,
    credential_requests,
    reply,
)
from wf_support import outputs

from pyadk import types
from pyadk.auth.auth_handler import AuthHandler
from pyadk.auth.auth_schemes import APIKey
from pyadk.auth.auth_tool import AuthConfig, AuthToolArguments
from pyadk.events import Event
from pyadk.events.client_requests import REQUEST_EUC_FUNCTION_CALL_NAME
from pyadk.flows.tool_auth import ToolAuthError
from pyadk.runners import Runner
from pyadk.sessions.sqlite_session_service import SqliteSessionService
from pyadk.testing import TestRunner
from pyadk.workflow import (
    REQUEST_INPUT_FUNCTION_CALL_NAME,
    START,
    Context,
    FunctionNode,
    RequestInput,
    Workflow,
    WorkflowConfigurationError,
    node,
)

KEY = AuthConfig(auth_scheme=APIKey(**{"in": "header", "name": "X-Api-Key"}))


def weather(keys: list[str], **settings: Any) -> Any:
    @node(auth_config=KEY, rerun_on_resume=True, **settings)
    def forecast(ctx: Context, node_input: str) -> str:
        credential = AuthHandler(KEY).get_auth_response(ctx.state)
        assert credential is not None and credential.api_key is not None
        keys.append(credential.api_key)
        return f"{node_input}: sunny"

    return forecast


def report(node_input: str) -> str:
    return f"report: {node_input}"


async def test_the_node_waits_for_the_credential_and_runs_with_it():
    keys: list[str] = []
    runner = TestRunner(Workflow(name="wf", edges=[(START, weather(keys), report)]))
    first = await runner.run("Paris")
    [request] = credential_requests(first)
    assert keys == [] and outputs(first) == []
    assert request.id is not None and request.id.startswith("wf_auth:")
    arguments = AuthToolArguments.model_validate(request.args)
    assert arguments.function_call_id == request.id  # as google-adk's function node asks
    assert arguments.auth_config.credential_key == KEY.credential_key
    assert request.args["message"] == "Enter your API key (X-Api-Key)."
    event = next(e for e in first if e.get_function_calls())
    assert event.author == "wf" and event.long_running_tool_ids == {request.id}

    resumed = await runner.run(api_key_answer(request, "k-42"))
    assert keys == ["k-42"]
    assert outputs(resumed) == [("forecast", "Paris: sunny"), ("report", "report: Paris: sunny")]
    stored = await runner.session()
    assert "k-42" not in json.dumps(stored.model_dump(mode="json"))  # kept in temp: only


async def test_a_bare_key_is_an_answer_too():
    keys: list[str] = []
    runner = TestRunner(Workflow(name="wf", edges=[(START, weather(keys))]))
    [request] = credential_requests(await runner.run("Oslo"))
    await runner.run(reply(request.id or "", request.name, {"response": "k-bare"}))
    assert keys == ["k-bare"]


async def test_a_wrong_answer_is_refused_and_the_node_still_waits():
    keys: list[str] = []
    runner = TestRunner(Workflow(name="wf", edges=[(START, weather(keys))]))
    [request] = credential_requests(await runner.run("Rome"))
    no_credential = reply(request.id or "", request.name, {"authScheme": {"type": "apiKey"}})
    with pytest.raises(ToolAuthError, match="holds no credential"):
        await runner.run(no_credential)
    forged = reply("wf_auth:forged", REQUEST_EUC_FUNCTION_CALL_NAME, {"response": "k"})
    with pytest.raises(ToolAuthError, match="No credential request 'wf_auth:forged'"):
        await runner.run(forged)
    assert keys == []
    resumed = await runner.run(api_key_answer(request, "k-1"))
    assert keys == ["k-1"] and outputs(resumed) == [("forecast", "Rome: sunny")]


async def test_a_credential_already_in_state_is_used_without_asking():
    keys: list[str] = []
    key = KEY.credential_key or ""
    runner = TestRunner(Workflow(name="wf", edges=[(START, weather(keys))]), state={key: "k-saved"})
    events = await runner.run("Lima")
    assert credential_requests(events) == [] and keys == ["k-saved"]


async def test_approval_first_then_the_credential():
    keys: list[str] = []
    runner = TestRunner(
        Workflow(name="wf", edges=[(START, weather(keys, require_confirmation=True))])
    )
    [approval_request] = approval_requests(await runner.run("Kyiv"))
    asked = await runner.run(approval(approval_request, True))
    [request] = credential_requests(asked)
    assert keys == []
    resumed = await runner.run(api_key_answer(request, "k-9"))
    assert keys == ["k-9"] and outputs(resumed) == [("forecast", "Kyiv: sunny")]


async def test_the_credential_answer_reaches_a_new_runner_on_sqlite(tmp_path: Path):
    db = str(tmp_path / "sessions.db")
    keys: list[str] = []

    def make_runner() -> Runner:
        return Runner(
            app_name="app",
            agent=Workflow(name="wf", edges=[(START, weather(keys), report)]),
            session_service=SqliteSessionService(db),
            auto_create_session=True,
        )

    async def turn(runner: Runner, message: types.Content) -> list[Event]:
        events = runner.run_async(user_id="u", session_id="s", new_message=message)
        return [e async for e in events]

    [request] = credential_requests(await turn(make_runner(), types.UserContent("Quito")))
    resumed = await turn(make_runner(), api_key_answer(request, "k-db"))
    assert keys == ["k-db"]
    assert outputs(resumed)[-1] == ("report", "report: Quito: sunny")


def plain(node_input: Any) -> str:
    return "ok"


def test_auth_config_needs_rerun_on_resume_and_an_auth_config():
    with pytest.raises(WorkflowConfigurationError, match="'plain' with auth_config needs"):
        node(plain, auth_config=KEY)
    with pytest.raises(WorkflowConfigurationError, match="needs rerun_on_resume=True"):
        FunctionNode(plain, auth_config=KEY)
    with pytest.raises(WorkflowConfigurationError, match="auth_config must be an AuthConfig"):
        node(plain, auth_config=42, rerun_on_resume=True)
    with pytest.raises(WorkflowConfigurationError, match="invalid auth_config"):
        node(plain, auth_config={"authScheme": 1}, rerun_on_resume=True)
    from_dict = node(
        plain, auth_config=KEY.model_dump(by_alias=True, exclude_none=True), rerun_on_resume=True
    )
    assert from_dict.auth_config.credential_key == KEY.credential_key


async def test_a_later_pause_of_the_node_does_not_keep_the_credential():
    keys: list[str] = []

    @node(auth_config=KEY, rerun_on_resume=True)
    def upload(ctx: Context) -> Any:
        key = AuthHandler(KEY).get_auth_response(ctx.state)
        assert key is not None and key.api_key is not None
        keys.append(key.api_key)
        if "title" not in ctx.resume_inputs:
            return RequestInput(interrupt_id="title", message="Title?")
        return f"uploaded {ctx.resume_inputs['title']}"

    runner = TestRunner(Workflow(name="wf", edges=[(START, upload)]))
    [request] = credential_requests(await runner.run("go"))
    asked = await runner.run(api_key_answer(request, "k-secret"))
    assert keys == ["k-secret"] and calls_named(asked, REQUEST_INPUT_FUNCTION_CALL_NAME)
    stored = await runner.session()
    assert "k-secret" not in json.dumps(stored.model_dump(mode="json"))  # not in the pause
    # The credential lived for that turn: the next turn asks for it again.
    title = reply("title", REQUEST_INPUT_FUNCTION_CALL_NAME, {"result": "notes"})
    [again] = credential_requests(await runner.run(title))
    done = await runner.run(api_key_answer(again, "k-2"))
    assert keys == ["k-secret", "k-2"] and outputs(done) == [("upload", "uploaded notes")]


async def test_a_nested_and_a_dynamic_node_ask_and_resume_too():
    keys: list[str] = []
    inner = Workflow(name="inner", edges=[(START, weather(keys))])
    runner = TestRunner(Workflow(name="outer", edges=[(START, inner, report)]))
    first = await runner.run("Bern")
    [request] = credential_requests(first)
    assert next(e for e in first if e.get_function_calls()).author == "inner"
    resumed = await runner.run(api_key_answer(request, "k-n"))
    assert keys == ["k-n"] and outputs(resumed)[-1] == ("report", "report: Bern: sunny")

    forecast = weather(keys)

    async def plan(ctx: Context) -> str:
        return f"plan: {await ctx.run_node(forecast, 'Graz')}"

    runner = TestRunner(Workflow(name="wf", edges=[(START, plan)]))
    [request] = credential_requests(await runner.run("go"))
    resumed = await runner.run(api_key_answer(request, "k-d"))
    assert keys == ["k-n", "k-d"] and outputs(resumed)[-1] == ("plan", "plan: Graz: sunny")
