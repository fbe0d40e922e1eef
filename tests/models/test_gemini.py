"""Gemini specifics beyond the conformance suite (real google-genai SDK, local server)."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from typing import Any

import pytest

from pyadk import types
from pyadk.models import Gemini, LlmRequest
from pyadk.testing.fixture_server import FixtureServer, json_response, sse_response
from pyadk.testing.model_conformance import GeminiWire, generate

wire = GeminiWire()


@pytest.fixture
def server() -> Iterator[FixtureServer]:
    with FixtureServer() as server:
        yield server


def _model(server: FixtureServer) -> Gemini:
    return Gemini(model="gemini-fixture", base_url=server.base_url, api_key="k", max_retries=0)


def _candidate(parts: list[dict[str, Any]], finish: str | None = "STOP") -> dict[str, Any]:
    candidate: dict[str, Any] = {"content": {"role": "model", "parts": parts}}
    if finish:
        candidate["finishReason"] = finish
    return {"candidates": [candidate]}


async def test_pyadk_call_ids_are_not_sent_but_api_ids_are(server: FixtureServer) -> None:
    server.enqueue(wire.text("ok"))
    calls = types.ModelContent(
        [
            types.Part(function_call=types.FunctionCall(id="adk-123", name="a", args={})),
            types.Part(function_call=types.FunctionCall(id="api-9", name="b", args={})),
        ]
    )
    results = types.UserContent(
        [
            types.Part(
                function_response=types.FunctionResponse(id="adk-123", name="a", response={})
            ),
            types.Part(function_response=types.FunctionResponse(id="api-9", name="b", response={})),
        ]
    )
    await generate(_model(server), LlmRequest(contents=[types.UserContent("go"), calls, results]))
    body = server.requests[0].json()
    assert [p["functionCall"].get("id") for p in body["contents"][1]["parts"]] == [None, "api-9"]
    assert [p["functionResponse"].get("id") for p in body["contents"][2]["parts"]] == [
        None,
        "api-9",
    ]


async def test_a_blocked_prompt_is_an_error_response(server: FixtureServer) -> None:
    feedback = {"blockReason": "SAFETY", "blockReasonMessage": "Blocked for safety."}
    server.enqueue(
        json_response({"promptFeedback": feedback, "usageMetadata": {"promptTokenCount": 4}})
    )
    (answer,) = await generate(_model(server), LlmRequest(contents=[types.UserContent("bad")]))
    assert (answer.error_code, answer.error_message) == ("SAFETY", "Blocked for safety.")
    assert answer.content is None
    assert answer.usage_metadata is not None and answer.usage_metadata.prompt_token_count == 4


async def test_json_schema_dict_goes_as_response_json_schema(server: FixtureServer) -> None:
    server.enqueue(wire.text("{}"), wire.text("{}"))
    json_schema = {"type": "object", "properties": {"n": {"type": "integer"}}}
    request = LlmRequest(contents=[types.UserContent("n?")])
    request.set_output_schema(json_schema)
    await generate(_model(server), request)
    genai_schema = types.Schema(
        type=types.Type.OBJECT, properties={"n": types.Schema(type=types.Type.INTEGER)}
    )
    request.set_output_schema(genai_schema)
    await generate(_model(server), request)
    first, second = (r.json()["generationConfig"] for r in server.requests)
    assert first["responseJsonSchema"] == json_schema
    assert first["responseMimeType"] == "application/json"
    assert second["responseSchema"] == {"type": "OBJECT", "properties": {"n": {"type": "INTEGER"}}}


async def test_a_signature_on_the_last_empty_text_chunk_is_kept(server: FixtureServer) -> None:
    signature = base64.b64encode(b"sig").decode()
    server.enqueue(
        sse_response(
            [
                _candidate([{"text": "Hel"}], finish=None),
                _candidate([{"text": "lo"}], finish=None),
                _candidate([{"text": "", "thoughtSignature": signature}]),
            ]
        )
    )
    request = LlmRequest(contents=[types.UserContent("hi")])
    *partials, final = await generate(_model(server), request, stream=True)
    assert [p.content.text for p in partials if p.content] == ["Hel", "lo"]
    assert final.content is not None
    assert final.content.parts == [types.Part(text="Hello", thought_signature=b"sig")]
    server.enqueue(wire.text("ok"))
    history = [types.UserContent("hi"), final.content, types.UserContent("more")]
    await generate(_model(server), LlmRequest(contents=history))
    sent = server.requests[1].json()["contents"][1]["parts"]
    assert sent == [{"text": "Hello", "thoughtSignature": signature}]


async def test_labels_are_not_sent_to_the_gemini_api(server: FixtureServer) -> None:
    server.enqueue(wire.text("ok"))
    request = LlmRequest(contents=[types.UserContent("hi")])
    request.config.labels = {"team": "x"}
    request.config.temperature = 0.1
    await generate(_model(server), request)
    body = server.requests[0].json()
    assert "labels" not in body
    assert body["generationConfig"]["temperature"] == 0.1


async def test_max_tokens_with_text_is_not_an_error(server: FixtureServer) -> None:
    server.enqueue(json_response(_candidate([{"text": "cut"}], finish="MAX_TOKENS")))
    (answer,) = await generate(_model(server), LlmRequest(contents=[types.UserContent("hi")]))
    assert answer.finish_reason == types.FinishReason.MAX_TOKENS
    assert answer.error_code is None


async def test_an_empty_candidate_cut_by_safety_is_an_error(server: FixtureServer) -> None:
    server.enqueue(json_response({"candidates": [{"finishReason": "SAFETY"}]}))
    (answer,) = await generate(_model(server), LlmRequest(contents=[types.UserContent("hi")]))
    assert (answer.error_code, answer.finish_reason) == ("SAFETY", types.FinishReason.SAFETY)


async def test_the_api_key_comes_from_google_api_key(
    server: FixtureServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GOOGLE_API_KEY", "key-from-env")
    monkeypatch.delenv("GEMINI_API_KEY", raising=False)
    monkeypatch.delenv("GOOGLE_GENAI_USE_VERTEXAI", raising=False)
    server.enqueue(wire.text("ok"))
    model = Gemini(model="gemini-2.5-flash", base_url=server.base_url, max_retries=0)
    (answer,) = await generate(model, LlmRequest(contents=[types.UserContent("hi")]))
    assert answer.content is not None and answer.content.text == "ok"
    assert server.requests[0].headers["x-goog-api-key"] == "key-from-env"
    assert server.requests[0].path.endswith("/models/gemini-2.5-flash:generateContent")
