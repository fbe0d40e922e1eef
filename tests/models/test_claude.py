"""Claude specifics beyond the conformance suite (real anthropic SDK, local server)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from pydantic import BaseModel

from pyadk import types
from pyadk.errors import BadRequestError, ModelOverloadedError, RateLimitError
from pyadk.models import Claude, LlmRequest
from pyadk.testing.fixture_server import FixtureServer, json_response, sse_response
from pyadk.testing.model_conformance import AnthropicWire, generate

wire = AnthropicWire()


@pytest.fixture
def server() -> Iterator[FixtureServer]:
    with FixtureServer() as server:
        yield server


def _model(server: FixtureServer, **options: Any) -> Claude:
    return Claude(
        model="claude-fixture", base_url=server.base_url, api_key="k", max_retries=0, **options
    )


def _message(content: list[dict[str, Any]], stop: str = "end_turn", **usage: int) -> dict[str, Any]:
    return {
        "id": "msg",
        "type": "message",
        "role": "assistant",
        "model": "claude-fixture",
        "content": content,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {"input_tokens": 5, "output_tokens": 3, **usage},
    }


def _hi() -> LlmRequest:
    return LlmRequest(contents=[types.UserContent("hi")])


async def test_max_tokens_default_and_override(server: FixtureServer) -> None:
    server.enqueue(wire.text("a"), wire.text("b"))
    await generate(_model(server), _hi())
    request = _hi()
    request.config = types.GenerateContentConfig(max_output_tokens=100, top_k=20, temperature=0)
    await generate(_model(server), request)
    first, second = (r.json() for r in server.requests)
    assert first["max_tokens"] == 4096
    assert (second["max_tokens"], second["top_k"], second["temperature"]) == (100, 20, 0)


async def test_thinking_budget_enables_thinking_with_room_for_the_answer(
    server: FixtureServer,
) -> None:
    server.enqueue(wire.text("ok"))
    request = _hi()
    request.config = types.GenerateContentConfig(
        max_output_tokens=1000, thinking_config=types.ThinkingConfig(thinking_budget=2048)
    )
    await generate(_model(server), request)
    body = server.requests[0].json()
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 2048}
    assert body["max_tokens"] > 2048


async def test_thinking_blocks_and_redacted_blocks_round_trip_in_order(
    server: FixtureServer,
) -> None:
    content = [
        {"type": "thinking", "thinking": "step 1", "signature": "sig-A"},
        {"type": "redacted_thinking", "data": "ENCRYPTED"},
        {"type": "text", "text": "Calling."},
        {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {"x": 1}},
    ]
    server.enqueue(json_response(_message(content, "tool_use")), wire.text("done"))
    (answer,) = await generate(_model(server), _hi())
    assert answer.content is not None
    assert answer.content.parts == [
        types.Part(text="step 1", thought=True, thought_signature=b"sig-A"),
        types.Part(thought=True, thought_signature=b"ENCRYPTED"),
        types.Part(text="Calling."),
        types.Part(function_call=types.FunctionCall(id="toolu_1", name="f", args={"x": 1})),
    ]
    result = types.Part(
        function_response=types.FunctionResponse(id="toolu_1", name="f", response={"y": 2})
    )
    history = [types.UserContent("hi"), answer.content, types.UserContent([result])]
    await generate(_model(server), LlmRequest(contents=history))
    assistant = server.requests[1].json()["messages"][1]
    assert assistant == {"role": "assistant", "content": content}


async def test_thoughts_without_a_signature_are_not_sent(server: FixtureServer) -> None:
    server.enqueue(wire.text("ok"))
    other_provider = types.ModelContent([types.Part(text="gemini thinks", thought=True), "Hello."])
    contents = [types.UserContent("hi"), other_provider, types.UserContent("and?")]
    await generate(_model(server), LlmRequest(contents=contents))
    assert server.requests[0].json()["messages"][1] == {
        "role": "assistant",
        "content": [{"type": "text", "text": "Hello."}],
    }


async def test_images_and_pdfs_are_sent_as_base64_blocks(server: FixtureServer) -> None:
    server.enqueue(wire.text("seen"))
    parts = [
        types.Part.from_bytes(data=b"img", mime_type="image/jpeg"),
        types.Part.from_bytes(data=b"%PDF", mime_type="application/pdf"),
        types.Part(text="Describe both."),
    ]
    await generate(_model(server), LlmRequest(contents=[types.UserContent(parts)]))
    blocks = server.requests[0].json()["messages"][0]["content"]
    assert blocks == [
        {"type": "image", "source": {"type": "base64", "media_type": "image/jpeg", "data": "aW1n"}},
        {
            "type": "document",
            "source": {"type": "base64", "media_type": "application/pdf", "data": "JVBERg=="},
        },
        {"type": "text", "text": "Describe both."},
    ]


@pytest.mark.parametrize(
    ("stop", "reason"),
    [("max_tokens", types.FinishReason.MAX_TOKENS), ("refusal", types.FinishReason.SAFETY)],
)
async def test_stop_reasons(server: FixtureServer, stop: str, reason: types.FinishReason) -> None:
    server.enqueue(json_response(_message([{"type": "text", "text": "partial"}], stop)))
    (answer,) = await generate(_model(server), _hi())
    assert answer.finish_reason == reason


async def test_cached_input_tokens_count_as_prompt_tokens(server: FixtureServer) -> None:
    body = _message([{"type": "text", "text": "hi"}], cache_read_input_tokens=100)
    server.enqueue(json_response(body))
    (answer,) = await generate(_model(server), _hi())
    usage = answer.usage_metadata
    assert usage is not None
    assert (usage.prompt_token_count, usage.cached_content_token_count) == (105, 100)
    assert usage.total_token_count == 108


@pytest.mark.parametrize(
    ("error_type", "expected"),
    [("overloaded_error", ModelOverloadedError), ("rate_limit_error", RateLimitError)],
)
async def test_an_error_event_inside_a_stream_is_typed(
    server: FixtureServer, error_type: str, expected: type[Exception]
) -> None:
    start = _message([])
    events: list[Any] = [
        ("message_start", {"type": "message_start", "message": start}),
        (
            "content_block_start",
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "text", "text": ""},
            },
        ),
        (
            "content_block_delta",
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "text_delta", "text": "Hi"},
            },
        ),
        ("error", {"type": "error", "error": {"type": error_type, "message": "try later"}}),
    ]
    server.enqueue(sse_response(events))
    seen = []
    with pytest.raises(expected, match="an error event in the stream"):
        async for response in _model(server).generate_content_async(_hi(), stream=True):
            seen.append(response)
    assert [r.partial for r in seen] == [True]


class Point(BaseModel):
    x: int
    y: int


async def test_structured_output_schema_is_closed(server: FixtureServer) -> None:
    server.enqueue(wire.text('{"x": 1, "y": 2}'))
    request = _hi()
    request.set_output_schema(Point)
    await generate(_model(server), request)
    schema = server.requests[0].json()["output_config"]["format"]["schema"]
    assert schema["additionalProperties"] is False
    assert schema["required"] == ["x", "y"]


async def test_gemini_builtin_tools_fail_fast(server: FixtureServer) -> None:
    request = _hi()
    request.config.tools = [types.Tool(code_execution={})]
    with pytest.raises(
        BadRequestError, match="Claude cannot use Gemini built-in tools: code_execution"
    ):
        await generate(_model(server), request)
    assert server.requests == []


async def test_a_history_opened_by_the_model_gets_a_user_turn_first(
    server: FixtureServer,
) -> None:
    server.enqueue(wire.text("ok"))
    contents = [types.ModelContent(["Welcome!"]), types.UserContent("hi")]
    await generate(_model(server), LlmRequest(contents=contents))
    roles = [m["role"] for m in server.requests[0].json()["messages"]]
    assert roles == ["user", "assistant", "user"]
