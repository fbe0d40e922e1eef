"""The Gemini API wire format (``generateContent`` / ``streamGenerateContent?alt=sse``).

Bodies follow https://ai.google.dev/api/generate-content: ``GenerateContentResponse``
objects (camelCase), one per SSE event when streaming, function calls delivered whole,
and ``{"error": {"code", "message", "status"}}`` bodies.
"""

from __future__ import annotations

import base64
from typing import Any, ClassVar

from pyadk.testing._model_wires import (
    OUTPUT_TOKENS,
    PROMPT_TOKENS,
    Call,
    SentResult,
    Wire,
    _lower_types,
)
from pyadk.testing.fixture_server import FixtureResponse, json_response, sse_response

SIGNATURE = base64.b64encode(b"gemini-thought-signature-1").decode()
_USAGE = {
    "promptTokenCount": PROMPT_TOKENS,
    "candidatesTokenCount": OUTPUT_TOKENS,
    "totalTokenCount": PROMPT_TOKENS + OUTPUT_TOKENS,
}
_ERRORS = {
    "rate_limit": (429, "RESOURCE_EXHAUSTED", "Resource has been exhausted (e.g. check quota)."),
    "overloaded": (503, "UNAVAILABLE", "The model is overloaded. Please try again later."),
    "bad_request": (400, "INVALID_ARGUMENT", "Request contains an invalid argument."),
}
_RETRY_INFO = "type.googleapis.com/google.rpc.RetryInfo"


def _response(
    parts: list[dict[str, Any]], finish: str | None = "STOP", usage: bool = True
) -> dict[str, Any]:
    candidate: dict[str, Any] = {"content": {"role": "model", "parts": parts}, "index": 0}
    if finish:
        candidate["finishReason"] = finish
    body: dict[str, Any] = {"candidates": [candidate], "modelVersion": "gemini-fixture"}
    if usage:
        body["usageMetadata"] = _USAGE
    return body


def _call_part(call: Call) -> dict[str, Any]:
    function_call: dict[str, Any] = {"name": call.name, "args": call.args}
    if call.id:
        function_call["id"] = call.id
    return {"functionCall": function_call}


class GeminiWire(Wire):
    name: ClassVar[str] = "gemini"
    call_ids: ClassVar[bool] = False
    pairs_tool_results: ClassVar[bool] = False
    returns_reasoning: ClassVar[bool] = True
    reasoning_signature: ClassVar[str | None] = SIGNATURE
    rate_limit_retry_after: ClassVar[float | None] = 1.0

    def text(self, text: str) -> FixtureResponse:
        return json_response(_response([{"text": text}]))

    def text_stream(self, chunks: list[str]) -> FixtureResponse:
        events = [_response([{"text": piece}], finish=None, usage=False) for piece in chunks[:-1]]
        events.append(_response([{"text": chunks[-1]}]))
        return sse_response(events)

    def tool_calls(self, calls: list[Call], text: str | None = None) -> FixtureResponse:
        parts = [{"text": text}] if text else []
        return json_response(_response(parts + [_call_part(c) for c in calls]))

    def tool_calls_stream(self, calls: list[Call], text: str | None = None) -> FixtureResponse:
        events = []
        if text:
            middle = len(text) // 2
            events += [
                _response([{"text": piece}], finish=None, usage=False)
                for piece in (text[:middle], text[middle:])
            ]
        events.append(_response([_call_part(c) for c in calls]))
        return sse_response(events)

    def reasoning(self, thought: str, call: Call, stream: bool = False) -> FixtureResponse:
        thought_part = {"text": thought, "thought": True}
        call_part = {**_call_part(call), "thoughtSignature": SIGNATURE}
        if not stream:
            return json_response(_response([thought_part, call_part]))
        return sse_response(
            [_response([thought_part], finish=None, usage=False), _response([call_part])]
        )

    def error(self, kind: str) -> FixtureResponse:
        status, code, message = _ERRORS[kind]
        error: dict[str, Any] = {"code": status, "message": message, "status": code}
        headers = None
        if kind == "rate_limit":
            # Gemini says when to retry in a google.rpc.RetryInfo detail of the body; the
            # Retry-After header says the same, for adapters that read only headers.
            error["details"] = [{"@type": _RETRY_INFO, "retryDelay": "1s"}]
            headers = {"Retry-After": "1"}
        return json_response({"error": error}, status, headers)

    def system_text(self, body: dict[str, Any]) -> str:
        instruction = body.get("systemInstruction") or {}
        return "".join(p.get("text", "") for p in instruction.get("parts", []))

    def _parts(self, body: dict[str, Any], role: str) -> list[dict[str, Any]]:
        return [
            part
            for content in body["contents"]
            if content.get("role", "user") == role
            for part in content.get("parts", [])
        ]

    def user_texts(self, body: dict[str, Any]) -> list[str]:
        return [p["text"] for p in self._parts(body, "user") if "text" in p]

    def tool_schemas(self, body: dict[str, Any]) -> dict[str, dict[str, Any]]:
        schemas = {}
        for tool in body.get("tools", []):
            for declaration in tool.get("functionDeclarations", []):
                schema = declaration.get("parametersJsonSchema") or declaration.get("parameters")
                schemas[declaration["name"]] = _lower_types(schema or {})
        return schemas

    def tool_choice(self, body: dict[str, Any]) -> tuple[str, list[str] | None]:
        config = (body.get("toolConfig") or {}).get("functionCallingConfig") or {}
        mode = str(config.get("mode", "AUTO")).lower()
        return mode, config.get("allowedFunctionNames")

    def response_schema(self, body: dict[str, Any]) -> dict[str, Any] | None:
        config = body.get("generationConfig") or {}
        schema = config.get("responseJsonSchema") or config.get("responseSchema")
        return _lower_types(schema) if isinstance(schema, dict) else None

    def sent_calls(self, body: dict[str, Any]) -> list[Call]:
        return [
            Call(
                p["functionCall"]["name"],
                p["functionCall"].get("args", {}),
                p["functionCall"].get("id"),
            )
            for p in self._parts(body, "model")
            if "functionCall" in p
        ]

    def sent_results(self, body: dict[str, Any]) -> list[SentResult]:
        return [
            SentResult(r.get("id"), r.get("name"), r.get("response"))
            for p in self._parts(body, "user")
            if (r := p.get("functionResponse")) is not None
        ]

    def sent_reasoning(self, body: dict[str, Any]) -> list[str]:
        return [
            p["thoughtSignature"] for p in self._parts(body, "model") if "thoughtSignature" in p
        ]
