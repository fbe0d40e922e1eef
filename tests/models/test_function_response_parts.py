"""Media a tool returned (``FunctionResponse.parts``): the exact request each adapter
sends (real SDKs, a local fixture server, no network)."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from typing import Any

import pytest

from pyadk import types
from pyadk.models import Claude, Gemini, LiteLlm, LlmRequest, OpenAIChat
from pyadk.testing.fixture_server import FixtureServer
from pyadk.testing.model_conformance import AnthropicWire, GeminiWire, OpenAIWire, generate

PNG = b"\x89PNG\r\n\x1a\nfake"
PNG_B64 = base64.b64encode(PNG).decode()


@pytest.fixture
def server() -> Iterator[FixtureServer]:
    with FixtureServer() as server:
        yield server


def _request(
    *media: types.FunctionResponsePart, response: dict[str, Any] | None = None
) -> LlmRequest:
    call = types.Part(function_call=types.FunctionCall(id="call-1", name="snapshot", args={}))
    result = types.FunctionResponse(
        id="call-1", name="snapshot", response=response or {}, parts=list(media)
    )
    return LlmRequest(
        contents=[
            types.UserContent("look"),
            types.ModelContent([call]),
            types.Content(role="user", parts=[types.Part(function_response=result)]),
        ]
    )


IMAGE = types.FunctionResponsePart.from_bytes(data=PNG, mime_type="image/png")


async def test_gemini_sends_function_response_parts_as_inline_data(server: FixtureServer) -> None:
    server.enqueue(GeminiWire().text("a cat"))
    chart = types.FunctionResponsePart.from_uri(
        file_uri="gs://bucket/chart.pdf", mime_type="application/pdf"
    )
    model = Gemini(model="gemini-fixture", base_url=server.base_url, api_key="k", max_retries=0)
    await generate(model, _request(IMAGE, chart, response={"camera": "front"}))
    body = server.requests[0].json()
    # google-genai writes a function response's parts with the proto field names
    # (snake_case), which the API accepts as it accepts camelCase.
    assert body["contents"][2]["parts"] == [
        {
            "functionResponse": {
                "id": "call-1",
                "name": "snapshot",
                "response": {"camera": "front"},
                "parts": [
                    {"inline_data": {"mime_type": "image/png", "data": PNG_B64}},
                    {
                        "file_data": {
                            "file_uri": "gs://bucket/chart.pdf",
                            "mime_type": "application/pdf",
                        }
                    },
                ],
            }
        }
    ]


def _claude(server: FixtureServer) -> Claude:
    return Claude(model="claude-fixture", base_url=server.base_url, api_key="k", max_retries=0)


async def test_claude_puts_images_inside_the_tool_result(server: FixtureServer) -> None:
    server.enqueue(AnthropicWire().text("a cat"))
    pdf = types.FunctionResponsePart.from_bytes(data=b"%PDF", mime_type="application/pdf")
    await generate(_claude(server), _request(IMAGE, pdf, response={"camera": "front"}))
    body = server.requests[0].json()
    assert body["messages"][2] == {
        "role": "user",
        "content": [
            {
                "type": "tool_result",
                "tool_use_id": "call-1",
                "content": [
                    {"type": "text", "text": '{"camera": "front"}'},
                    {
                        "type": "image",
                        "source": {"type": "base64", "media_type": "image/png", "data": PNG_B64},
                    },
                    {
                        "type": "document",
                        "source": {
                            "type": "base64",
                            "media_type": "application/pdf",
                            "data": base64.b64encode(b"%PDF").decode(),
                        },
                    },
                ],
            }
        ],
    }


async def test_claude_sends_web_urls_and_notes_media_it_cannot_take(server: FixtureServer) -> None:
    server.enqueue(AnthropicWire().text("ok"))
    web = types.FunctionResponsePart.from_uri(
        file_uri="https://example.test/cat.jpg", mime_type="image/jpeg"
    )
    bucket = types.FunctionResponsePart.from_uri(
        file_uri="gs://bucket/cat.jpg", mime_type="image/jpeg"
    )
    audio = types.FunctionResponsePart.from_bytes(data=b"RIFF", mime_type="audio/wav")
    await generate(_claude(server), _request(web, bucket, audio))
    blocks = server.requests[0].json()["messages"][2]["content"][0]["content"]
    assert blocks == [
        {"type": "text", "text": "{}"},
        {"type": "image", "source": {"type": "url", "url": "https://example.test/cat.jpg"}},
        {
            "type": "text",
            "text": "[gs://bucket/cat.jpg (image/jpeg) omitted: "
            "Claude cannot receive it in a tool result]",
        },
        {"type": "text", "text": "[audio/wav omitted: Claude cannot receive it in a tool result]"},
    ]


async def test_claude_tool_results_without_media_stay_plain_text(server: FixtureServer) -> None:
    server.enqueue(AnthropicWire().text("ok"))
    await generate(_claude(server), _request(response={"sales": 3}))
    block = server.requests[0].json()["messages"][2]["content"][0]
    assert block["content"] == '{"sales": 3}'


def _expected_openai_messages(media_items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The messages after the assistant's tool call."""
    return [
        {"role": "tool", "tool_call_id": "call-1", "content": '{"camera": "front"}'},
        {"role": "user", "content": media_items},
    ]


async def test_openai_sends_the_image_in_a_user_message_after_the_tool_message(
    server: FixtureServer,
) -> None:
    server.enqueue(OpenAIWire().text("a cat"))
    model = OpenAIChat(
        model="gpt-fixture", base_url=f"{server.base_url}/v1", api_key="k", max_retries=0
    )
    await generate(model, _request(IMAGE, response={"camera": "front"}))
    assert server.requests[0].json()["messages"][2:] == _expected_openai_messages(
        [{"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG_B64}"}}]
    )


async def test_litellm_does_the_same_and_notes_what_it_cannot_send(server: FixtureServer) -> None:
    server.enqueue(OpenAIWire().text("ok"))
    llm = LiteLlm(
        "openai/fixture-model", api_base=f"{server.base_url}/v1", api_key="k", max_retries=0
    )
    bucket = types.FunctionResponsePart.from_uri(
        file_uri="gs://bucket/cat.mp4", mime_type="video/mp4"
    )
    await generate(llm, _request(IMAGE, bucket, response={"camera": "front"}))
    assert server.requests[0].json()["messages"][2:] == _expected_openai_messages(
        [
            {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG_B64}"}},
            {
                "type": "text",
                "text": "[gs://bucket/cat.mp4 (video/mp4) omitted: LiteLlm cannot receive it]",
            },
        ]
    )


async def test_openai_media_of_parallel_calls_follows_all_tool_messages(
    server: FixtureServer,
) -> None:
    server.enqueue(OpenAIWire().text("ok"))
    calls = [
        types.Part(function_call=types.FunctionCall(id=f"c{i}", name="snap", args={}))
        for i in (1, 2)
    ]
    results = [
        types.Part(
            function_response=types.FunctionResponse(
                id=f"c{i}", name="snap", response={}, parts=[IMAGE] if i == 1 else None
            )
        )
        for i in (1, 2)
    ]
    request = LlmRequest(
        contents=[
            types.UserContent("look"),
            types.ModelContent(calls),
            types.Content(role="user", parts=results),
        ]
    )
    model = OpenAIChat(
        model="gpt-fixture", base_url=f"{server.base_url}/v1", api_key="k", max_retries=0
    )
    await generate(model, request)
    roles = [m["role"] for m in server.requests[0].json()["messages"]]
    assert roles == ["user", "assistant", "tool", "tool", "user"]


def test_paired_history_keeps_the_media_of_answers_and_of_orphans() -> None:
    from pyadk.models._history import paired_history

    request = _request(IMAGE, response={"camera": "front"})
    orphan = types.FunctionResponse(id="zz", name="old", response={}, parts=[IMAGE])
    request.contents.append(types.UserContent([types.Part(function_response=orphan), "and?"]))
    [_, _, results] = paired_history(request.contents)  # the user turns merge
    assert results.parts[0].function_response.parts == [IMAGE]
    # An answer to no call becomes text, and its image an ordinary image part.
    assert [p.text for p in results.parts[1:]] == ["Tool `old` returned: {}", None, "and?"]
    assert results.parts[2].inline_data == types.Blob(data=PNG, mime_type="image/png")
