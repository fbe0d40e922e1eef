"""RemoteA2aAgent against a real A2A server (to_a2a on uvicorn, 127.0.0.1)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
from a2a_support import Chat, answers, meta, user_texts

from pyadk import types
from pyadk.agents import LlmAgent
from pyadk.agents.remote_a2a_agent import RemoteA2aAgent
from pyadk.runners import InMemoryRunner
from pyadk.testing import ScriptedModel, function_call
from pyadk.tools.long_running_tool import LongRunningFunctionTool


async def test_text_answer_comes_back_with_the_remote_task_and_context(
    serve_a2a: Callable[..., str],
) -> None:
    model = ScriptedModel(["Bonjour from far away"])
    card_url = serve_a2a(LlmAgent(name="greeter", model=model, description="Greets people"))
    chat = Chat(RemoteA2aAgent(name="greeter", agent_card=card_url))

    events = await chat.say("hello")

    assert answers(events) == ["Bonjour from far away"]
    assert user_texts(model) == ["hello"]
    final = next(e for e in events if answers([e]))
    assert final.author == "greeter" and final.error_code is None
    assert meta(final, "task_id") and meta(final, "context_id")
    assert meta(final, "request")["parts"][0] == {
        "text": "hello",
        "metadata": {"is_user_input": True},
    }
    states = [meta(e, "response")["status"]["state"] for e in events]
    assert states[0] == "TASK_STATE_SUBMITTED" and states[-1] == "TASK_STATE_COMPLETED"


async def test_tool_calling_remote_reports_its_calls_as_progress_and_answers(
    serve_a2a: Callable[..., str],
) -> None:
    calls: list[str] = []

    def get_weather(city: str) -> dict[str, Any]:
        """Get the weather for a city."""
        calls.append(city)
        return {"city": city, "celsius": 21}

    model = ScriptedModel([function_call("get_weather", {"city": "Paris"}), "21 C in Paris"])
    remote = LlmAgent(name="weather", model=model, tools=[get_weather])
    chat = Chat(RemoteA2aAgent(name="weather", agent_card=serve_a2a(remote)))

    events = await chat.say("weather in Paris?")

    assert calls == ["Paris"]
    assert answers(events) == ["21 C in Paris"]
    parts = [p for e in events if e.content for p in e.content.parts or []]
    call = next(p for p in parts if p.function_call)
    response = next(p for p in parts if p.function_response)
    assert call.thought and call.function_call is not None
    assert (call.function_call.name, call.function_call.args) == ("get_weather", {"city": "Paris"})
    assert response.function_response is not None
    assert response.function_response.response == {"city": "Paris", "celsius": 21}


async def test_second_turn_continues_the_same_remote_context_and_session(
    serve_a2a: Callable[..., str],
) -> None:
    model = ScriptedModel(["first answer", "second answer"])
    chat = Chat(
        RemoteA2aAgent(name="echo", agent_card=serve_a2a(LlmAgent(name="echo", model=model)))
    )

    first = await chat.say("one")
    second = await chat.say("two")

    assert answers(first) == ["first answer"] and answers(second) == ["second answer"]
    context = meta(first[-1], "context_id")
    assert meta(second[-1], "context_id") == context
    assert meta(second[-1], "request")["contextId"] == context
    # only the new text is sent; the remote session remembers the first turn
    assert [p["text"] for p in meta(second[-1], "request")["parts"]] == ["two"]
    history = model.requests[1].contents
    assert [(c.role, c.parts[0].text) for c in history] == [
        ("user", "one"),
        ("model", "first answer"),
        ("user", "two"),
    ]


async def test_parent_transfers_to_a_remote_sub_agent(serve_a2a: Callable[..., str]) -> None:
    remote_model = ScriptedModel(["42, from the oracle"])
    card_url = serve_a2a(LlmAgent(name="oracle", model=remote_model, description="Knows things"))
    oracle = RemoteA2aAgent(name="oracle", agent_card=card_url)
    root_model = ScriptedModel([function_call("transfer_to_agent", {"agent_name": "oracle"})])
    root = LlmAgent(name="root", model=root_model, sub_agents=[oracle])

    events = await Chat(root).say("what is the answer?")

    assert answers(events) == ["42, from the oracle"]
    assert events[-1].author == "oracle"
    assert "what is the answer?" in user_texts(remote_model)
    # the parent's transfer call is retold to the remote as context, not sent as a call
    sent = " ".join(user_texts(remote_model))
    assert "[root] called tool `transfer_to_agent`" in sent


async def test_long_running_remote_tool_pauses_and_resumes_the_same_task(
    serve_a2a: Callable[..., str],
) -> None:
    def ask_manager(amount: int) -> dict[str, str]:
        """Asks a manager to approve a payment."""
        return {"status": "pending"}

    model = ScriptedModel(
        [function_call("ask_manager", {"amount": 5}), "waiting for the manager", "paid"]
    )
    remote = LlmAgent(name="payer", model=model, tools=[LongRunningFunctionTool(ask_manager)])
    chat = Chat(RemoteA2aAgent(name="payer", agent_card=serve_a2a(remote)))

    first = await chat.say("pay 5")
    pause = first[-1]
    assert meta(pause, "response")["status"]["state"] == "TASK_STATE_INPUT_REQUIRED"
    assert pause.content is not None and pause.long_running_tool_ids
    call = pause.content.parts[0].function_call
    assert call is not None and call.id in pause.long_running_tool_ids

    reply = types.Part.from_function_response(name=call.name, response={"status": "approved"})
    assert reply.function_response is not None
    reply.function_response.id = call.id
    second = await chat.send(types.Content(role="user", parts=[reply]))

    assert answers(second) == ["paid"]
    assert meta(second[-1], "task_id") == meta(pause, "task_id")
    assert meta(second[-1], "request")["taskId"] == meta(pause, "task_id")
    answered = model.requests[-1].contents[-1].parts[0].function_response
    assert answered is not None and answered.response == {"status": "approved"}


async def test_agent_card_from_a_file_and_from_an_object(
    serve_a2a: Callable[..., str], tmp_path: Path
) -> None:
    card_url = serve_a2a(LlmAgent(name="filed", model=ScriptedModel(["a", "b"])))
    card_json = httpx.get(card_url).json()
    card_file = tmp_path / "card.json"
    card_file.write_text(json.dumps(card_json))

    from a2a.client.card_resolver import parse_agent_card

    by_file = RemoteA2aAgent(name="filed", agent_card=str(card_file))
    by_object = RemoteA2aAgent(name="filed", agent_card=parse_agent_card(card_json))

    assert answers(await Chat(by_file).say("x")) == ["a"]
    assert answers(await Chat(by_object).say("y")) == ["b"]
    assert by_object.description == "An ADK Agent"


def test_sync_runner_calls_the_remote_turn_after_turn(serve_a2a: Callable[..., str]) -> None:
    # Runner.run gives each call an event loop of its own; the agent follows
    model = ScriptedModel(["first", "second"])
    remote = RemoteA2aAgent(name="sync", agent_card=serve_a2a(LlmAgent(name="sync", model=model)))
    runner = InMemoryRunner(agent=remote, app_name="caller")
    session = asyncio.run(runner.session_service.create_session(app_name="caller", user_id="u"))

    said = []
    for text in ("one", "two"):
        message = types.Content(role="user", parts=[types.Part.from_text(text=text)])
        said.append(
            answers(list(runner.run(user_id="u", session_id=session.id, new_message=message)))
        )

    assert said == [["first"], ["second"]]
    assert [c.parts[0].text for c in model.requests[1].contents] == ["one", "first", "two"]


async def test_client_factory_http_client_carries_card_and_messages(
    serve_a2a: Callable[..., str],
) -> None:
    from a2a.client import ClientConfig, ClientFactory

    seen: list[str] = []

    async def record(request: httpx.Request) -> None:
        seen.append(f"{request.method} {request.url.path}")

    url = serve_a2a(LlmAgent(name="hooked", model=ScriptedModel(["through the factory"])))
    async with httpx.AsyncClient(event_hooks={"request": [record]}) as client:
        factory = ClientFactory(
            ClientConfig(httpx_client=client, supported_protocol_bindings=["JSONRPC"])
        )
        remote = RemoteA2aAgent(name="hooked", agent_card=url, a2a_client_factory=factory)
        events = await Chat(remote).say("hi")

    assert answers(events) == ["through the factory"]
    assert seen == ["GET /.well-known/agent-card.json", "POST /"]
