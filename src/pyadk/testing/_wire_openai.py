"""The OpenAI chat-completions wire format (also spoken by LiteLLM's openai/ provider).

Bodies follow https://platform.openai.com/docs/api-reference/chat: ``chat.completion``
objects, ``chat.completion.chunk`` SSE events ending with ``data: [DONE]``, and
``{"error": {...}}`` bodies. Reasoning comes the way OpenAI-compatible reasoning servers
send it, in a field of the message or of the stream deltas: ``reasoning_content``
(DeepSeek, the llama.cpp server) or ``reasoning`` (newer vLLM, Ollama, OpenRouter).
"""

from __future__ import annotations

import json
from typing import Any, ClassVar

from pyadk.testing._model_wires import (
    OUTPUT_TOKENS,
    PROMPT_TOKENS,
    Call,
    SentResult,
    Wire,
    _halves,
)
from pyadk.testing.fixture_server import FixtureResponse, json_response, sse_response

_USAGE = {
    "prompt_tokens": PROMPT_TOKENS,
    "completion_tokens": OUTPUT_TOKENS,
    "total_tokens": PROMPT_TOKENS + OUTPUT_TOKENS,
}
_ERRORS = {
    "rate_limit": (
        429,
        {
            "message": "Rate limit reached for requests",
            "type": "requests",
            "code": "rate_limit_exceeded",
        },
    ),
    "overloaded": (503, {"message": "The server is overloaded.", "type": "server_error"}),
    "bad_request": (
        400,
        {"message": "Invalid 'messages'.", "type": "invalid_request_error", "param": "messages"},
    ),
}

# OpenAI sends retry-after-ms next to the whole seconds of Retry-After; the ms win.
_RATE_LIMIT_HEADERS = {"retry-after-ms": "20", "retry-after": "1"}


def _completion(message: dict[str, Any], finish: str) -> dict[str, Any]:
    return {
        "id": "chatcmpl-fixture",
        "object": "chat.completion",
        "created": 1700000000,
        "model": "fixture-model",
        "choices": [{"index": 0, "message": message, "finish_reason": finish, "logprobs": None}],
        "usage": _USAGE,
    }


def _chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-fixture",
        "object": "chat.completion.chunk",
        "created": 1700000000,
        "model": "fixture-model",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}],
    }


def _usage_chunk() -> dict[str, Any]:
    chunk = _chunk({})
    chunk["choices"] = []
    chunk["usage"] = _USAGE
    return chunk


def _tool_call(index: int, call: Call) -> dict[str, Any]:
    return {
        "id": call.id or f"call_{index}",
        "type": "function",
        "function": {"name": call.name, "arguments": json.dumps(call.args)},
    }


class OpenAIWire(Wire):
    """The OpenAI chat-completions format; ``reasoning_field`` is where answers carry
    reasoning (and where the next request must send it back)."""

    name: ClassVar[str] = "openai"
    returns_reasoning: ClassVar[bool] = True
    rate_limit_retry_after: ClassVar[float | None] = 0.02

    def __init__(self, reasoning_field: str = "reasoning_content") -> None:
        self.reasoning_field = reasoning_field

    def text(self, text: str) -> FixtureResponse:
        return json_response(_completion({"role": "assistant", "content": text}, "stop"))

    def text_stream(self, chunks: list[str]) -> FixtureResponse:
        events: list[Any] = [_chunk({"role": "assistant", "content": ""})]
        events += [_chunk({"content": piece}) for piece in chunks]
        events += [_chunk({}, "stop"), _usage_chunk(), "[DONE]"]
        return sse_response(events)

    def tool_calls(self, calls: list[Call], text: str | None = None) -> FixtureResponse:
        message = {
            "role": "assistant",
            "content": text,
            "tool_calls": [_tool_call(i, c) for i, c in enumerate(calls)],
        }
        return json_response(_completion(message, "tool_calls"))

    def tool_calls_stream(self, calls: list[Call], text: str | None = None) -> FixtureResponse:
        events: list[Any] = [_chunk({"role": "assistant", "content": None})]
        if text:
            events += [_chunk({"content": piece}) for piece in _halves(text)]
        for index, call in enumerate(calls):
            head = _tool_call(index, call)
            head["function"]["arguments"] = ""
            events.append(_chunk({"tool_calls": [{"index": index, **head}]}))
            for piece in _halves(json.dumps(call.args)):
                delta = {"index": index, "function": {"arguments": piece}}
                events.append(_chunk({"tool_calls": [delta]}))
        events += [_chunk({}, "tool_calls"), _usage_chunk(), "[DONE]"]
        return sse_response(events)

    def reasoning(self, thought: str, call: Call, stream: bool = False) -> FixtureResponse:
        if not stream:
            message = {
                "role": "assistant",
                "content": None,
                self.reasoning_field: thought,
                "tool_calls": [_tool_call(0, call)],
            }
            return json_response(_completion(message, "tool_calls"))
        first, second = _halves(thought)
        head = _tool_call(0, call)
        events: list[Any] = [
            _chunk({"role": "assistant", "content": None, self.reasoning_field: first}),
            _chunk({self.reasoning_field: second}),
            _chunk({"tool_calls": [{"index": 0, **head}]}),
            _chunk({}, "tool_calls"),
            _usage_chunk(),
            "[DONE]",
        ]
        return sse_response(events)

    def error(self, kind: str) -> FixtureResponse:
        status, error = _ERRORS[kind]
        headers = _RATE_LIMIT_HEADERS if kind == "rate_limit" else None
        return json_response({"error": error}, status, headers)

    def system_text(self, body: dict[str, Any]) -> str:
        return "\n".join(
            m["content"] for m in body["messages"] if m["role"] in ("system", "developer")
        )

    def user_texts(self, body: dict[str, Any]) -> list[str]:
        texts = []
        for message in body["messages"]:
            if message["role"] != "user":
                continue
            content = message["content"]
            if isinstance(content, str):
                texts.append(content)
            else:
                texts.extend(item["text"] for item in content if item.get("type") == "text")
        return texts

    def tool_schemas(self, body: dict[str, Any]) -> dict[str, dict[str, Any]]:
        return {t["function"]["name"]: t["function"]["parameters"] for t in body.get("tools", [])}

    def tool_choice(self, body: dict[str, Any]) -> tuple[str, list[str] | None]:
        choice = body.get("tool_choice", "auto")
        names = sorted(self.tool_schemas(body)) or None
        if isinstance(choice, dict):
            return "any", [choice["function"]["name"]]
        if choice == "required":
            return "any", names
        return choice, None

    def response_schema(self, body: dict[str, Any]) -> dict[str, Any] | None:
        response_format = body.get("response_format") or {}
        schema = (response_format.get("json_schema") or {}).get("schema")
        return schema if isinstance(schema, dict) else None

    def sent_calls(self, body: dict[str, Any]) -> list[Call]:
        return [
            Call(c["function"]["name"], json.loads(c["function"]["arguments"]), c["id"])
            for m in body["messages"]
            if m["role"] == "assistant"
            for c in m.get("tool_calls") or []
        ]

    def sent_results(self, body: dict[str, Any]) -> list[SentResult]:
        return [
            SentResult(m["tool_call_id"], None, json.loads(m["content"]))
            for m in body["messages"]
            if m["role"] == "tool"
        ]

    def sent_reasoning(self, body: dict[str, Any]) -> list[str]:
        return [
            m[self.reasoning_field]
            for m in body["messages"]
            if m["role"] == "assistant" and m.get(self.reasoning_field)
        ]
