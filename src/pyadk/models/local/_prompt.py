"""Qwen2.5's chat template (with tool calling), rendered from pyadk contents.

The output is byte-for-byte what the model's own Jinja template produces for the same
messages, tools and ``add_generation_prompt=True``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from pyadk import types

DEFAULT_SYSTEM = "You are Qwen, created by Alibaba Cloud. You are a helpful assistant."
GENERATION_PROMPT = "<|im_start|>assistant\n"
STOP_SEQUENCES = ("<|im_end|>", "<|endoftext|>")

_TOOLS_INTRO = (
    "\n\n# Tools\n\nYou may call one or more functions to assist with the user query.\n\n"
    "You are provided with function signatures within <tools></tools> XML tags:\n<tools>"
)
_TOOLS_OUTRO = (
    "\n</tools>\n\nFor each function call, return a json object with function name and "
    "arguments within <tool_call></tool_call> XML tags:\n<tool_call>\n"
    '{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call><|im_end|>\n'
)


@dataclass
class Message:
    """A chat message as the template sees it (``role`` user, assistant or tool)."""

    role: str
    content: str = ""
    tool_calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)


def to_json(value: Any) -> str:
    """JSON as the template's ``tojson`` writes it (non-ASCII kept, default separators)."""
    return json.dumps(value, ensure_ascii=False, default=str)


def tool_entry(name: str, description: str | None, parameters: dict[str, Any]) -> dict[str, Any]:
    """One function as listed inside ``<tools>``."""
    function: dict[str, Any] = {"name": name}
    if description:
        function["description"] = description
    function["parameters"] = parameters
    return {"type": "function", "function": function}


def _part_text(part: types.Part) -> str | None:
    if part.text is not None:
        return None if part.thought else part.text
    if part.inline_data is not None:
        return f"[inline data: {part.inline_data.mime_type or 'unknown type'}]"
    if part.file_data is not None:
        return f"[file: {part.file_data.file_uri}]"
    if part.executable_code is not None:
        return part.executable_code.code or ""
    if part.code_execution_result is not None:
        return part.code_execution_result.output or ""
    return None


def messages_from_contents(contents: list[types.Content]) -> list[Message]:
    """Template messages for a history: function responses become ``tool`` messages,
    function calls become the assistant's ``tool_calls``; thoughts are dropped."""
    messages: list[Message] = []
    for content in contents:
        role = "assistant" if content.role == "model" else "user"
        texts: list[str] = []
        calls: list[tuple[str, dict[str, Any]]] = []
        for part in content.parts or []:
            if part.function_call is not None:
                calls.append((part.function_call.name or "", part.function_call.args or {}))
            elif part.function_response is not None:
                response = part.function_response.response or {}
                messages.append(Message("tool", to_json(response)))
            else:
                text = _part_text(part)
                if text is not None:
                    texts.append(text)
        if texts or calls:
            messages.append(Message(role, "".join(texts), calls))
    return messages


def call_json(name: str, args: dict[str, Any]) -> str:
    """A call as the model writes it: ``{"name": ..., "arguments": ...}``."""
    return '{"name": "' + name + '", "arguments": ' + to_json(args) + "}"


def answered_calls_prefill(messages: list[Message]) -> str:
    """When the history ends with tool results: the calls they answer, one per line.

    Put at the start of the assistant's turn, this lets a small model go on from its
    calls to the answer; without it, it tends to repeat the call it just made.
    """
    index = len(messages) - 1
    while index >= 0 and messages[index].role == "tool":
        index -= 1
    if index == len(messages) - 1 or index < 0 or not messages[index].tool_calls:
        return ""
    return "".join(call_json(name, args) + "\n" for name, args in messages[index].tool_calls)


def render(
    system: str, messages: list[Message], tools: list[dict[str, Any]], prefill: str = ""
) -> str:
    """The prompt for ``messages``, ending with the assistant's generation prompt (and
    ``prefill``, the start of the assistant's reply)."""
    out: list[str] = []
    if tools:
        out.append("<|im_start|>system\n" + (system or DEFAULT_SYSTEM) + _TOOLS_INTRO)
        out.extend("\n" + to_json(tool) for tool in tools)
        out.append(_TOOLS_OUTRO)
    else:
        out.append("<|im_start|>system\n" + (system or DEFAULT_SYSTEM) + "<|im_end|>\n")
    for index, message in enumerate(messages):
        if message.role == "tool":
            if index == 0 or messages[index - 1].role != "tool":
                out.append("<|im_start|>user")
            out.append("\n<tool_response>\n" + message.content + "\n</tool_response>")
            if index == len(messages) - 1 or messages[index + 1].role != "tool":
                out.append("<|im_end|>\n")
        elif message.role == "assistant" and message.tool_calls:
            out.append("<|im_start|>assistant")
            if message.content:
                out.append("\n" + message.content)
            for name, args in message.tool_calls:
                out.append("\n<tool_call>\n" + call_json(name, args) + "\n</tool_call>")
            out.append("<|im_end|>\n")
        else:
            out.append(f"<|im_start|>{message.role}\n{message.content}<|im_end|>\n")
    out.append(GENERATION_PROMPT + prefill)
    return "".join(out)
