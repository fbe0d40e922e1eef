"""The Anthropic Messages wire format.

Bodies follow https://docs.anthropic.com/en/api/messages and
https://docs.anthropic.com/en/docs/build-with-claude/streaming: ``message`` objects,
named SSE events (``message_start``, ``content_block_start``, ``content_block_delta``,
``content_block_stop``, ``message_delta``, ``message_stop``, ``ping``) and
``{"type": "error", "error": {...}}`` bodies (HTTP 529 when overloaded).
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
from pyadk.testing.fixture_server import FixtureResponse, SseEvent, json_response, sse_response

SIGNATURE = "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds"
_ERRORS = {
    "rate_limit": (429, "rate_limit_error", "Number of request tokens has exceeded your limit."),
    "overloaded": (529, "overloaded_error", "Overloaded"),
    "bad_request": (400, "invalid_request_error", "messages: field required"),
}

# Anthropic sends retry-after-ms next to the whole seconds of Retry-After; the ms win.
_RATE_LIMIT_HEADERS = {"retry-after-ms": "20", "retry-after": "1"}


def _message(content: list[dict[str, Any]], stop: str) -> dict[str, Any]:
    return {
        "id": "msg_fixture",
        "type": "message",
        "role": "assistant",
        "model": "claude-fixture",
        "content": content,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {"input_tokens": PROMPT_TOKENS, "output_tokens": OUTPUT_TOKENS},
    }


def _tool_use(index: int, call: Call, with_input: bool = True) -> dict[str, Any]:
    return {
        "type": "tool_use",
        "id": call.id or f"toolu_{index:02d}",
        "name": call.name,
        "input": call.args if with_input else {},
    }


def _stream(
    blocks: list[tuple[dict[str, Any], list[dict[str, Any]]]], stop: str
) -> FixtureResponse:
    start = _message([], stop)
    start["stop_reason"] = None
    start["usage"] = {"input_tokens": PROMPT_TOKENS, "output_tokens": 1}
    events: list[SseEvent] = [("message_start", {"type": "message_start", "message": start})]
    for index, (block, deltas) in enumerate(blocks):
        events.append(
            (
                "content_block_start",
                {"type": "content_block_start", "index": index, "content_block": block},
            )
        )
        if index == 0:
            events.append(("ping", {"type": "ping"}))
        for delta in deltas:
            events.append(
                (
                    "content_block_delta",
                    {"type": "content_block_delta", "index": index, "delta": delta},
                )
            )
        events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
    events.append(
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop, "stop_sequence": None},
                "usage": {"output_tokens": OUTPUT_TOKENS},
            },
        )
    )
    events.append(("message_stop", {"type": "message_stop"}))
    return sse_response(events)


def _text_stream_block(text: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    return {"type": "text", "text": ""}, [{"type": "text_delta", "text": t} for t in _halves(text)]


def _call_stream_block(index: int, call: Call) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    deltas = [
        {"type": "input_json_delta", "partial_json": p} for p in _halves(json.dumps(call.args))
    ]
    return _tool_use(index, call, with_input=False), deltas


class AnthropicWire(Wire):
    name: ClassVar[str] = "anthropic"
    returns_reasoning: ClassVar[bool] = True
    reasoning_signature: ClassVar[str | None] = SIGNATURE
    overloaded_status: ClassVar[int] = 529
    rate_limit_retry_after: ClassVar[float | None] = 0.02

    def text(self, text: str) -> FixtureResponse:
        return json_response(_message([{"type": "text", "text": text}], "end_turn"))

    def text_stream(self, chunks: list[str]) -> FixtureResponse:
        deltas = [{"type": "text_delta", "text": piece} for piece in chunks]
        return _stream([({"type": "text", "text": ""}, deltas)], "end_turn")

    def tool_calls(self, calls: list[Call], text: str | None = None) -> FixtureResponse:
        content = [{"type": "text", "text": text}] if text else []
        content += [_tool_use(i, c) for i, c in enumerate(calls)]
        return json_response(_message(content, "tool_use"))

    def tool_calls_stream(self, calls: list[Call], text: str | None = None) -> FixtureResponse:
        blocks = [_text_stream_block(text)] if text else []
        blocks += [_call_stream_block(i, c) for i, c in enumerate(calls)]
        return _stream(blocks, "tool_use")

    def reasoning(self, thought: str, call: Call, stream: bool = False) -> FixtureResponse:
        if not stream:
            thinking = {"type": "thinking", "thinking": thought, "signature": SIGNATURE}
            return json_response(_message([thinking, _tool_use(0, call)], "tool_use"))
        deltas = [{"type": "thinking_delta", "thinking": t} for t in _halves(thought)]
        deltas.append({"type": "signature_delta", "signature": SIGNATURE})
        thinking_block = ({"type": "thinking", "thinking": ""}, deltas)
        return _stream([thinking_block, _call_stream_block(1, call)], "tool_use")

    def error(self, kind: str) -> FixtureResponse:
        status, error_type, message = _ERRORS[kind]
        headers = _RATE_LIMIT_HEADERS if kind == "rate_limit" else None
        return json_response(
            {"type": "error", "error": {"type": error_type, "message": message}}, status, headers
        )

    def system_text(self, body: dict[str, Any]) -> str:
        system = body.get("system", "")
        if isinstance(system, list):
            return "\n".join(block["text"] for block in system)
        return str(system)

    def _blocks(self, body: dict[str, Any], role: str) -> list[dict[str, Any]]:
        blocks = []
        for message in body["messages"]:
            if message["role"] != role:
                continue
            content = message["content"]
            if isinstance(content, str):
                blocks.append({"type": "text", "text": content})
            else:
                blocks.extend(content)
        return blocks

    def user_texts(self, body: dict[str, Any]) -> list[str]:
        return [b["text"] for b in self._blocks(body, "user") if b["type"] == "text"]

    def tool_schemas(self, body: dict[str, Any]) -> dict[str, dict[str, Any]]:
        return {t["name"]: t["input_schema"] for t in body.get("tools", [])}

    def tool_choice(self, body: dict[str, Any]) -> tuple[str, list[str] | None]:
        choice = body.get("tool_choice") or {"type": "auto"}
        if choice["type"] == "tool":
            return "any", [choice["name"]]
        if choice["type"] == "any":
            return "any", sorted(self.tool_schemas(body)) or None
        return choice["type"], None

    def response_schema(self, body: dict[str, Any]) -> dict[str, Any] | None:
        output = body.get("output_config") or {}
        schema = (output.get("format") or {}).get("schema")
        return schema if isinstance(schema, dict) else None

    def sent_calls(self, body: dict[str, Any]) -> list[Call]:
        blocks = self._blocks(body, "assistant")
        return [Call(b["name"], b["input"], b["id"]) for b in blocks if b["type"] == "tool_use"]

    def sent_results(self, body: dict[str, Any]) -> list[SentResult]:
        results = []
        for block in self._blocks(body, "user"):
            if block["type"] == "tool_result":
                content = block.get("content") or ""
                if isinstance(content, list):
                    content = "".join(item.get("text", "") for item in content)
                results.append(SentResult(block["tool_use_id"], None, json.loads(str(content))))
        return results

    def sent_reasoning(self, body: dict[str, Any]) -> list[str]:
        return [b["signature"] for b in self._blocks(body, "assistant") if b["type"] == "thinking"]
