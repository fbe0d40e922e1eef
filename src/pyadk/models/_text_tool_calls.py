"""Tool calls that a server returned as plain text.

Small local models behind OpenAI-compatible servers (llama.cpp, vLLM, Ollama) often
answer a tool request with the call as JSON text (``{"name": ..., "arguments": ...}``,
maybe in a code fence or ``<tool_call>`` tags) instead of a structured ``tool_calls``
entry. When the whole answer is such a call to a declared tool, it is a call.
"""

from __future__ import annotations

import json
import re
from typing import Any

from pyadk import types
from pyadk.models.llm_response import LlmResponse

_FENCED = re.compile(r"^```(?:json)?\s*(.*?)\s*```$", re.DOTALL)
_TAGGED = re.compile(r"<tool_call>\s*(.*?)\s*</tool_call>", re.DOTALL)


def _payloads(text: str) -> list[str]:
    text = text.strip()
    fenced = _FENCED.match(text)
    if fenced:
        return [fenced.group(1)]
    tagged = _TAGGED.findall(text)
    if tagged and not _TAGGED.sub("", text).strip():
        return list(tagged)
    return [text]


def _call(item: Any, names: set[str]) -> types.FunctionCall | None:
    if not isinstance(item, dict) or item.get("name") not in names:
        return None
    args = item.get("arguments", item.get("parameters", {}))
    if isinstance(args, str):
        try:
            args = json.loads(args) if args.strip() else {}
        except ValueError:
            return None
    if not isinstance(args, dict) or set(item) - {"name", "arguments", "parameters"}:
        return None
    return types.FunctionCall(name=item["name"], args=args)


def calls_in_text(text: str, names: set[str]) -> list[types.FunctionCall] | None:
    """The calls ``text`` consists of, or None when it is anything else."""
    calls: list[types.FunctionCall] = []
    for payload in _payloads(text):
        try:
            value = json.loads(payload)
        except ValueError:
            return None
        for item in value if isinstance(value, list) else [value]:
            call = _call(item, names)
            if call is None:
                return None
            calls.append(call)
    return calls or None


def recover_text_tool_calls(response: LlmResponse, names: list[str]) -> LlmResponse:
    """``response`` with a text answer that is only tool calls turned into those calls."""
    content = response.content
    if not names or response.error_code or content is None or not content.parts:
        return response
    if any(p.function_call for p in content.parts) or not content.text:
        return response
    calls = calls_in_text(content.text, set(names))
    if calls is None:
        return response
    thoughts = [p for p in content.parts if p.thought]
    parts = thoughts + [types.Part(function_call=call) for call in calls]
    return response.model_copy(update={"content": types.Content(role="model", parts=parts)})
