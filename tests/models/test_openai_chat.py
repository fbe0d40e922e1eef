"""OpenAIChat specifics beyond the conformance suite (real openai SDK, local server)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

from pyadk import types
from pyadk.agents import LlmAgent, RetryPolicy
from pyadk.errors import BadRequestError
from pyadk.models import LlmRequest, OpenAIChat
from pyadk.testing import TestRunner
from pyadk.testing.fixture_server import FixtureServer, json_response, sse_response
from pyadk.testing.model_conformance import Call, OpenAIWire, generate

wire = OpenAIWire()


@pytest.fixture
def server() -> Iterator[FixtureServer]:
    with FixtureServer() as server:
        yield server


def _model(server: FixtureServer, **options: Any) -> OpenAIChat:
    options.setdefault("api_key", "k")
    return OpenAIChat(
        model="openai/gpt-fixture", base_url=f"{server.base_url}/v1", max_retries=0, **options
    )


def _completion(message: dict[str, Any], finish: str = "stop") -> dict[str, Any]:
    return {
        "id": "c",
        "object": "chat.completion",
        "created": 1,
        "model": "gpt-fixture",
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
    }


async def test_request_carries_name_sampling_options_and_extra_body(
    server: FixtureServer,
) -> None:
    server.enqueue(wire.text("ok"))
    request = LlmRequest(contents=[types.UserContent("hi")])
    request.config = types.GenerateContentConfig(
        temperature=0.2, top_p=0.9, max_output_tokens=64, stop_sequences=["END"], seed=7
    )
    await generate(_model(server, extra_body={"top_k": 5}), request)
    body = server.requests[0].json()
    assert body["model"] == "gpt-fixture"
    assert {k: body[k] for k in ("temperature", "top_p", "max_tokens", "stop", "seed")} == {
        "temperature": 0.2,
        "top_p": 0.9,
        "max_tokens": 64,
        "stop": ["END"],
        "seed": 7,
    }
    assert body["top_k"] == 5
    assert "tools" not in body and "response_format" not in body


async def test_images_are_sent_as_data_urls(server: FixtureServer) -> None:
    server.enqueue(wire.text("a cat"))
    image = types.Part.from_bytes(data=b"\x89PNG", mime_type="image/png")
    await generate(_model(server), LlmRequest(contents=[types.UserContent(["What is it?", image])]))
    (message,) = server.requests[0].json()["messages"]
    assert message == {
        "role": "user",
        "content": [
            {"type": "text", "text": "What is it?"},
            {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw=="}},
        ],
    }


async def test_unsupported_attachment_fails_before_any_request(server: FixtureServer) -> None:
    archive = types.Part.from_bytes(data=b"PK", mime_type="application/zip")
    with pytest.raises(BadRequestError, match="OpenAIChat cannot send inline data of type"):
        await generate(_model(server), LlmRequest(contents=[types.UserContent([archive])]))
    assert server.requests == []


async def test_reasoning_text_and_calls_are_sent_back_but_signed_thoughts_are_not(
    server: FixtureServer,
) -> None:
    server.enqueue(wire.text("done"))
    model_turn = types.ModelContent(
        [
            types.Part(text="private reasoning", thought=True),
            types.Part(text="a Claude block", thought=True, thought_signature=b"sig"),
            "Let me check.",
            types.Part(function_call=types.FunctionCall(id="c1", name="f", args={"x": 1})),
        ]
    )
    result = types.FunctionResponse(id="c1", name="f", response={"ok": True})
    contents = [
        types.UserContent("go"),
        model_turn,
        types.UserContent([types.Part(function_response=result)]),
    ]
    await generate(_model(server), LlmRequest(contents=contents))
    messages = server.requests[0].json()["messages"]
    assert messages[1] == {
        "role": "assistant",
        "content": "Let me check.",
        "reasoning_content": "private reasoning",
        "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "f", "arguments": '{"x": 1}'}}
        ],
    }
    assert messages[2] == {"role": "tool", "tool_call_id": "c1", "content": '{"ok": true}'}


async def test_json_mode_without_a_schema(server: FixtureServer) -> None:
    server.enqueue(wire.text("{}"))
    request = LlmRequest(contents=[types.UserContent("json please")])
    request.config.response_mime_type = "application/json"
    await generate(_model(server), request)
    assert server.requests[0].json()["response_format"] == {"type": "json_object"}


async def test_reasoning_content_becomes_thought_parts(server: FixtureServer) -> None:
    message = {"role": "assistant", "content": "42", "reasoning_content": "6 times 7"}
    server.enqueue(json_response(_completion(message)))
    (answer,) = await generate(_model(server), LlmRequest(contents=[types.UserContent("6*7?")]))
    assert answer.content is not None
    assert answer.content.parts == [
        types.Part(text="6 times 7", thought=True),
        types.Part(text="42"),
    ]
    assert answer.content.text == "42"


async def test_streamed_reasoning_content_is_yielded_as_thought_partials(
    server: FixtureServer,
) -> None:
    chunk = {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m"}
    deltas = [({"reasoning_content": "6x7"}, None), ({"content": "42"}, None), ({}, "stop")]
    events: list[Any] = [
        {**chunk, "choices": [{"index": 0, "delta": d, "finish_reason": f}]} for d, f in deltas
    ]
    server.enqueue(sse_response([*events, "[DONE]"]))
    request = LlmRequest(contents=[types.UserContent("6*7?")])
    *partials, final = await generate(_model(server), request, stream=True)
    assert [
        (p.content.parts[0].text, p.content.parts[0].thought)
        for p in partials
        if p.content and p.content.parts
    ] == [
        ("6x7", True),
        ("42", None),
    ]
    assert final.content is not None and final.content.text == "42"


async def test_length_finish_reason_is_max_tokens(server: FixtureServer) -> None:
    server.enqueue(json_response(_completion({"role": "assistant", "content": "trunc"}, "length")))
    (answer,) = await generate(_model(server), LlmRequest(contents=[types.UserContent("go")]))
    assert answer.finish_reason == types.FinishReason.MAX_TOKENS
    assert answer.error_code is None and answer.content is not None
    assert answer.content.text == "trunc"


async def test_malformed_tool_arguments_end_the_turn_with_an_error_event(
    server: FixtureServer,
) -> None:
    calls: list[str] = []

    def get_weather(city: str) -> dict[str, str]:
        """Weather."""
        calls.append(city)
        return {}

    bad_call = {
        "id": "c1",
        "type": "function",
        "function": {"name": "get_weather", "arguments": '{"city": '},
    }
    server.enqueue(
        json_response(
            _completion(
                {"role": "assistant", "content": None, "tool_calls": [bad_call]}, "tool_calls"
            )
        )
    )
    agent = LlmAgent(name="a", model=_model(server), tools=[get_weather])
    events = await TestRunner(agent).run("weather?")
    assert calls == []
    (error,) = [e for e in events if e.error_code]
    assert error.error_code == "MALFORMED_FUNCTION_CALL"
    assert "get_weather" in (error.error_message or "")
    assert not any(e.get_function_calls() for e in events)


async def test_rate_limit_is_retried_by_the_agents_model_retry_policy(
    server: FixtureServer,
) -> None:
    server.enqueue(wire.error("rate_limit"), wire.text("Hello after a pause."))
    agent = LlmAgent(
        name="a", model=_model(server), model_retry=RetryPolicy(attempts=2, initial_delay=0)
    )
    events = await TestRunner(agent).run("hi")
    assert events[-1].content is not None
    assert events[-1].content.text == "Hello after a pause."
    assert len(server.requests) == 2


async def test_bad_request_is_not_retried(server: FixtureServer) -> None:
    server.enqueue(wire.error("bad_request"), wire.text("never sent"))
    agent = LlmAgent(
        name="a", model=_model(server), model_retry=RetryPolicy(attempts=3, initial_delay=0)
    )
    with pytest.raises(BadRequestError, match="HTTP 400"):
        await TestRunner(agent).run("hi")
    assert len(server.requests) == 1


def test_one_model_object_serves_several_event_loops(server: FixtureServer) -> None:
    """Sync callers (``Runner.run``) start a new loop per call; the client must follow."""
    server.enqueue(wire.text("one"), wire.text("two"))
    model = _model(server)
    request = LlmRequest(contents=[types.UserContent("hi")])
    texts = [asyncio.run(generate(model, request))[0].content.text for _ in range(2)]  # type: ignore[union-attr]
    assert texts == ["one", "two"]


async def test_a_local_server_needs_no_api_key(
    server: FixtureServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    server.enqueue(wire.text("ok"))
    await generate(_model(server, api_key=None), LlmRequest(contents=[types.UserContent("hi")]))
    assert server.requests[0].headers["authorization"] == "Bearer not-needed"


async def test_api_key_from_the_environment(
    server: FixtureServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
    server.enqueue(wire.text("ok"))
    await generate(_model(server, api_key=None), LlmRequest(contents=[types.UserContent("hi")]))
    assert server.requests[0].headers["authorization"] == "Bearer sk-env"


async def test_streaming_without_usage_option(server: FixtureServer) -> None:
    server.enqueue(wire.text_stream(["a", "b"]))
    request = LlmRequest(contents=[types.UserContent("hi")])
    await generate(_model(server, stream_usage=False), request, stream=True)
    body = server.requests[0].json()
    assert body["stream"] is True and "stream_options" not in body


async def test_single_allowed_function_is_forced_by_name(server: FixtureServer) -> None:
    server.enqueue(wire.tool_calls([Call("f", {}, "c1")]))
    request = LlmRequest(contents=[types.UserContent("go")])
    request.config.tools = [
        types.Tool(function_declarations=[types.FunctionDeclaration(name="f", description="F.")])
    ]
    request.config.tool_config = types.ToolConfig(
        function_calling_config=types.FunctionCallingConfig(
            mode=types.FunctionCallingConfigMode.ANY
        )
    )
    await generate(_model(server), request)
    body = server.requests[0].json()
    assert body["tool_choice"] == {"type": "function", "function": {"name": "f"}}
    assert body["tools"][0]["function"]["parameters"] == {"type": "object", "properties": {}}


async def test_gemini_builtin_tools_fail_fast(server: FixtureServer) -> None:
    request = LlmRequest(contents=[types.UserContent("news?")])
    request.config.tools = [types.Tool(google_search={})]
    with pytest.raises(
        BadRequestError, match="OpenAIChat cannot use Gemini built-in tools: google_search"
    ):
        await generate(_model(server), request)
    assert server.requests == []


async def test_a_model_turn_of_thoughts_only_is_not_sent(server: FixtureServer) -> None:
    server.enqueue(wire.text("ok"))
    thinking_only = types.ModelContent([types.Part(text="hmm", thought=True)])
    contents = [types.UserContent("a"), thinking_only, types.UserContent("b")]
    await generate(_model(server), LlmRequest(contents=contents))
    assert server.requests[0].json()["messages"] == [
        {"role": "user", "content": "a"},
        {"role": "user", "content": "b"},
    ]
