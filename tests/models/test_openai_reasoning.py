"""Reasoning from OpenAI-compatible servers: kept as thought parts, sent back next turn.

DeepSeek and llama.cpp's server answer with ``reasoning_content``, newer vLLM with
``reasoning``; DeepSeek rejects a follow-up request of a tool-call turn whose
``reasoning_content`` is missing, and vLLM's templates only see ``reasoning``. The
adapter sends reasoning back in the field its server answers with.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from pyadk import types
from pyadk.agents import LlmAgent
from pyadk.models import LlmRequest, OpenAIChat
from pyadk.testing import TestRunner
from pyadk.testing.fixture_server import FixtureServer, json_response, sse_response
from pyadk.testing.model_conformance import generate
from pyadk.tools import FunctionTool


@pytest.fixture
def server() -> Iterator[FixtureServer]:
    with FixtureServer() as server:
        yield server


def _model(server: FixtureServer, **options: Any) -> OpenAIChat:
    return OpenAIChat(
        model="openai/reasoner",
        base_url=f"{server.base_url}/v1",
        api_key="k",
        max_retries=0,
        **options,
    )


def _completion(message: dict[str, Any], finish: str = "stop") -> dict[str, Any]:
    return {
        "id": "c",
        "object": "chat.completion",
        "created": 1,
        "model": "reasoner",
        "choices": [
            {"index": 0, "message": {"role": "assistant", **message}, "finish_reason": finish}
        ],
        "usage": {
            "prompt_tokens": 20,
            "completion_tokens": 9,
            "total_tokens": 29,
            "completion_tokens_details": {"reasoning_tokens": 6},
        },
    }


def _call(call_id: str, name: str, arguments: str) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def _chunks(deltas: list[dict[str, Any]], finish: str) -> list[Any]:
    base = {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "reasoner"}
    events: list[Any] = [
        {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]}
        for delta in deltas
    ]
    events.append({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]})
    return [*events, "[DONE]"]


def get_weather(city: str) -> dict[str, Any]:
    """Weather of a city.

    Args:
      city: the city.
    """
    return {"city": city, "sky": "clear"}


@pytest.mark.parametrize("field", ["reasoning_content", "reasoning"])
async def test_reasoning_of_a_tool_turn_goes_back_in_the_servers_field(
    server: FixtureServer, field: str
) -> None:
    server.enqueue(
        json_response(
            _completion(
                {
                    "content": None,
                    field: "The user wants Paris weather; call the tool.",
                    "tool_calls": [_call("call_1", "get_weather", '{"city": "Paris"}')],
                },
                "tool_calls",
            )
        ),
        json_response(_completion({"content": "Clear in Paris.", field: "Tool said clear."})),
    )
    agent = LlmAgent(name="a", model=_model(server), tools=[get_weather])
    events = await TestRunner(agent).run("Weather in Paris?")

    first = events[0]
    assert first.content is not None and first.content.parts is not None
    thought, call = first.content.parts
    assert (thought.thought, thought.text) == (True, "The user wants Paris weather; call the tool.")
    assert call.function_call is not None and call.function_call.args == {"city": "Paris"}
    assert first.usage_metadata is not None and first.usage_metadata.thoughts_token_count == 6
    assert events[-1].text == "Clear in Paris."

    (assistant,) = [m for m in server.requests[1].json()["messages"] if m["role"] == "assistant"]
    assert assistant == {
        "role": "assistant",
        "content": None,
        field: "The user wants Paris weather; call the tool.",
        "tool_calls": [_call("call_1", "get_weather", '{"city": "Paris"}')],
    }


async def test_streamed_reasoning_is_one_thought_part_and_goes_back(server: FixtureServer) -> None:
    # llama.cpp's server and DeepSeek stream reasoning_content deltas before the call.
    server.enqueue(
        sse_response(
            _chunks(
                [
                    {"role": "assistant", "content": None, "reasoning_content": "Need "},
                    {"reasoning_content": "the weather."},
                    {
                        "tool_calls": [
                            {
                                "index": 0,
                                "id": "call_1",
                                "type": "function",
                                "function": {"name": "get_weather", "arguments": ""},
                            }
                        ]
                    },
                    {"tool_calls": [{"index": 0, "function": {"arguments": '{"city": "Oslo"}'}}]},
                ],
                "tool_calls",
            )
        ),
        sse_response(_chunks([{"reasoning_content": "Done."}, {"content": "Clear."}], "stop")),
    )
    model = _model(server)
    request = LlmRequest(contents=[types.UserContent("Oslo?")])
    request.append_tools([FunctionTool(get_weather)])
    *partials, final = await generate(model, request, stream=True)
    assert [(p.content.parts[0].text, p.content.parts[0].thought) for p in partials] == [
        ("Need ", True),
        ("the weather.", True),
    ]
    assert final.content is not None and final.content.parts is not None
    thought, call = final.content.parts
    assert (thought.text, thought.thought) == ("Need the weather.", True)
    assert call.function_call is not None and call.function_call.name == "get_weather"

    result = types.Part.from_function_response(name="get_weather", response={"sky": "clear"})
    result.function_response.id = call.function_call.id  # type: ignore[union-attr]
    request.contents += [final.content, types.Content(role="user", parts=[result])]
    *_, answer = await generate(model, request, stream=True)
    assert answer.content is not None and answer.content.text == "Clear."
    assistant = server.requests[1].json()["messages"][1]
    assert assistant["reasoning_content"] == "Need the weather."
    assert assistant["tool_calls"][0]["id"] == "call_1"


async def test_a_fresh_model_sends_reasoning_content_until_its_server_answers(
    server: FixtureServer,
) -> None:
    # A resumed session: the history has reasoning, this model object saw no answer yet.
    history = [
        types.UserContent("a"),
        types.ModelContent([types.Part(text="thinking", thought=True), "answer"]),
        types.UserContent("b"),
    ]
    server.enqueue(
        json_response(_completion({"content": "x", "reasoning": "r"})),
        json_response(_completion({"content": "y"})),
    )
    model = _model(server)
    await generate(model, LlmRequest(contents=history))
    await generate(model, LlmRequest(contents=history))
    sent = [r.json()["messages"][1] for r in server.requests]
    assert sent[0] == {"role": "assistant", "content": "answer", "reasoning_content": "thinking"}
    assert sent[1] == {"role": "assistant", "content": "answer", "reasoning": "thinking"}


@pytest.mark.parametrize(("option", "expected"), [(None, None), ("reasoning", "reasoning")])
async def test_the_reasoning_field_can_be_chosen_or_turned_off(
    server: FixtureServer, option: str | None, expected: str | None
) -> None:
    history = [
        types.UserContent("a"),
        types.ModelContent([types.Part(text="thinking", thought=True), "answer"]),
        types.UserContent("b"),
    ]
    server.enqueue(json_response(_completion({"content": "x"})))
    await generate(_model(server, reasoning_field=option), LlmRequest(contents=history))
    assistant = server.requests[0].json()["messages"][1]
    fields = {k for k in assistant if k.startswith("reasoning")}
    assert fields == ({expected} if expected else set())


async def test_a_server_sending_both_fields_gets_reasoning_back(server: FixtureServer) -> None:
    # vLLM during its rename answers with both fields but reads only "reasoning".
    both = {"content": "x", "reasoning": "r", "reasoning_content": "r"}
    history = [
        types.UserContent("a"),
        types.ModelContent([types.Part(text="thinking", thought=True), "answer"]),
        types.UserContent("b"),
    ]
    server.enqueue(json_response(_completion(both)), json_response(_completion({"content": "y"})))
    model = _model(server)
    (first,) = await generate(model, LlmRequest(contents=[types.UserContent("a")]))
    assert first.content is not None
    assert first.content.parts == [types.Part(text="r", thought=True), types.Part(text="x")]
    await generate(model, LlmRequest(contents=history))
    assistant = server.requests[1].json()["messages"][1]
    assert assistant == {"role": "assistant", "content": "answer", "reasoning": "thinking"}
