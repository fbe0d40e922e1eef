"""pyadk requests and responses in the OpenAI chat-completions wire format.

Shared by :class:`~pyadk.models.openai_chat.OpenAIChat` and
:class:`~pyadk.models.lite_llm.LiteLlm` (LiteLLM speaks the same format).
``provider_fields=True`` also reads and writes LiteLLM's extensions: Anthropic
``thinking_blocks`` and Gemini thought signatures on tool calls.

Reasoning that OpenAI-compatible servers return beside the answer (``reasoning_content``
from DeepSeek, llama.cpp and older vLLM; ``reasoning`` from newer vLLM, Ollama and
OpenRouter) becomes thought parts, and with ``reasoning_field`` it is sent back in that
field of the assistant message, as DeepSeek requires for turns with tool calls.

A tool message carries text only: media a tool returned (``FunctionResponse.parts``)
follows the tool messages in a user message (an ``image_url``, ``input_audio`` or
``file`` item per part), as google-adk's LiteLlm sends it.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping
from typing import Any

from pyadk import types
from pyadk.errors import BadRequestError
from pyadk.models._history import ensure_user_turn, paired_history, response_text
from pyadk.models._schemas import (
    builtin_tool_names,
    function_declarations,
    parameters_schema,
    schema_name,
    to_json_schema,
)
from pyadk.models._streaming import ResponseBuilder
from pyadk.models.llm_request import LlmRequest
from pyadk.models.llm_response import LlmResponse

_FINISH_REASONS = {
    "stop": types.FinishReason.STOP,
    "tool_calls": types.FinishReason.STOP,
    "function_call": types.FinishReason.STOP,
    "length": types.FinishReason.MAX_TOKENS,
    "content_filter": types.FinishReason.SAFETY,
}
_AUDIO_FORMATS = {"audio/wav": "wav", "audio/x-wav": "wav", "audio/mpeg": "mp3", "audio/mp3": "mp3"}


def as_dict(obj: Any) -> dict[str, Any]:
    """An SDK object (pydantic) or a mapping as a plain dict."""
    if obj is None:
        return {}
    if isinstance(obj, Mapping):
        return dict(obj)
    dump = getattr(obj, "model_dump", None)
    if callable(dump):
        return dict(dump())
    return dict(vars(obj))


# --- requests -------------------------------------------------------------------------


REASONING_FIELDS = ("reasoning", "reasoning_content")
"""The assistant-message fields that carry reasoning, in the order they are read (vLLM
sends both during its rename, and reads only ``reasoning``)."""
DEFAULT_REASONING_FIELD = "reasoning_content"
"""Where reasoning goes back before a server has shown its field (DeepSeek, llama.cpp)."""


def build_messages(
    request: LlmRequest,
    *,
    adapter: str,
    provider_fields: bool = False,
    reasoning_field: str | None = None,
) -> list[dict[str, Any]]:
    """The ``messages`` of a chat-completions request.

    With ``reasoning_field``, a model turn's unsigned thought parts (reasoning read from
    this wire format) go back in that field of its assistant message. Signed thoughts
    belong to another provider's format and are not sent.
    """
    messages: list[dict[str, Any]] = []
    system = request.system_instruction_text()
    if system:
        messages.append({"role": "system", "content": system})
    for content in paired_history(ensure_user_turn(list(request.contents))):
        if content.role == "model":
            message = _assistant_message(content, provider_fields, reasoning_field)
            if message["content"] is not None or "tool_calls" in message:
                messages.append(message)  # not a turn of thoughts only
        else:
            messages.extend(_user_messages(content, adapter))
    return messages


def _assistant_message(
    content: types.Content, provider_fields: bool, reasoning_field: str | None
) -> dict[str, Any]:
    parts = content.parts or []
    texts = [p.text for p in parts if p.text and not p.thought]
    message: dict[str, Any] = {"role": "assistant", "content": "".join(texts) or None}
    reasoning = "".join(p.text or "" for p in parts if p.thought and p.thought_signature is None)
    if reasoning_field and reasoning:
        message[reasoning_field] = reasoning
    calls = []
    for part in parts:
        call = part.function_call
        if call is None:
            continue
        entry: dict[str, Any] = {
            "id": call.id,
            "type": "function",
            "function": {"name": call.name, "arguments": json.dumps(call.args or {})},
        }
        if provider_fields and part.thought_signature:
            signature = base64.b64encode(part.thought_signature).decode()
            entry["provider_specific_fields"] = {"thought_signature": signature}
        calls.append(entry)
    if calls:
        message["tool_calls"] = calls
    if provider_fields:
        blocks = [
            {
                "type": "thinking",
                "thinking": p.text or "",
                "signature": p.thought_signature.decode(errors="replace"),
            }
            for p in parts
            if p.thought and p.thought_signature and p.text is not None
        ]
        if blocks:
            message["thinking_blocks"] = blocks
    return message


def _user_messages(content: types.Content, adapter: str) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = []
    items: list[dict[str, Any]] = []
    for part in content.parts or []:
        if part.function_response is not None:
            response = part.function_response
            messages.append(
                {"role": "tool", "tool_call_id": response.id, "content": response_text(response)}
            )
            items.extend(_tool_media_item(media, adapter) for media in response.parts or ())
        elif not part.thought:
            item = _content_item(part, adapter)
            if item is not None:
                items.append(item)
    if items:
        if all(item["type"] == "text" for item in items):
            messages.append({"role": "user", "content": "\n".join(i["text"] for i in items)})
        else:
            messages.append({"role": "user", "content": items})
    return messages


def _tool_media_item(media: types.FunctionResponsePart, adapter: str) -> dict[str, Any]:
    """Media a tool returned, as an item of the user message after the tool messages (a
    tool message carries text only); a text note when this format cannot carry it."""
    blob, file = media.inline_data, media.file_data
    if blob is not None and blob.data is not None:
        part = types.Part(inline_data=types.Blob(mime_type=blob.mime_type, data=blob.data))
        what = blob.mime_type or "application/octet-stream"
    elif file is not None and file.file_uri:
        part = types.Part(
            file_data=types.FileData(file_uri=file.file_uri, mime_type=file.mime_type)
        )
        what = f"{file.file_uri} ({file.mime_type or 'no type'})"
    else:
        return {"type": "text", "text": "[empty media part omitted]"}
    try:
        item = _content_item(part, adapter)
    except BadRequestError:
        item = None
    return item or {"type": "text", "text": f"[{what} omitted: {adapter} cannot receive it]"}


def _content_item(part: types.Part, adapter: str) -> dict[str, Any] | None:
    if part.text is not None:
        return {"type": "text", "text": part.text}
    if part.inline_data is not None and part.inline_data.data is not None:
        mime = part.inline_data.mime_type or "application/octet-stream"
        data = base64.b64encode(part.inline_data.data).decode()
        if mime.startswith("image/"):
            return {"type": "image_url", "image_url": {"url": f"data:{mime};base64,{data}"}}
        if mime in _AUDIO_FORMATS:
            return {
                "type": "input_audio",
                "input_audio": {"data": data, "format": _AUDIO_FORMATS[mime]},
            }
        if mime == "application/pdf":
            name = part.inline_data.display_name or "document.pdf"
            return {
                "type": "file",
                "file": {"filename": name, "file_data": f"data:{mime};base64,{data}"},
            }
        if mime.startswith("text/"):
            return {"type": "text", "text": part.inline_data.data.decode(errors="replace")}
        raise BadRequestError(f"{adapter} cannot send inline data of type {mime!r}.")
    if part.file_data is not None:
        uri, mime = part.file_data.file_uri or "", part.file_data.mime_type or ""
        if uri.startswith(("http://", "https://")) and (mime.startswith("image/") or not mime):
            return {"type": "image_url", "image_url": {"url": uri}}
        raise BadRequestError(
            f"{adapter} cannot send a file reference {uri!r} ({mime or 'no type'})."
        )
    if part.executable_code is not None:
        return {"type": "text", "text": f"```\n{part.executable_code.code}\n```"}
    if part.code_execution_result is not None:
        return {"type": "text", "text": part.code_execution_result.output or ""}
    return None


def build_tools(request: LlmRequest, *, adapter: str) -> tuple[list[dict[str, Any]] | None, Any]:
    """(``tools``, ``tool_choice``) for the request's declarations and tool_config.

    AUTO -> ``"auto"``; NONE -> ``"none"``; ANY -> ``"required"``, or the one named
    function when a single name is allowed. ``allowed_function_names`` narrows the
    declared tools to those names. Gemini's built-in tools raise BadRequestError.
    """
    builtin = builtin_tool_names(request.config.tools)
    if builtin:
        raise BadRequestError(f"{adapter} cannot use Gemini built-in tools: {', '.join(builtin)}.")
    declarations = function_declarations(request.config.tools)
    calling = (
        request.config.tool_config.function_calling_config if request.config.tool_config else None
    )
    mode = calling.mode if calling is not None else None
    allowed = calling.allowed_function_names if calling is not None else None
    if allowed:
        declarations = [d for d in declarations if d.name in allowed]
    if not declarations:
        return None, None
    tools = [
        {
            "type": "function",
            "function": {
                "name": d.name,
                "description": d.description or "",
                "parameters": parameters_schema(d),
            },
        }
        for d in declarations
    ]
    choice: Any = None
    if mode == types.FunctionCallingConfigMode.NONE:
        choice = "none"
    elif mode == types.FunctionCallingConfigMode.ANY:
        choice = "required"
        if len(declarations) == 1:
            choice = {"type": "function", "function": {"name": declarations[0].name}}
    elif mode == types.FunctionCallingConfigMode.AUTO:
        choice = "auto"
    return tools, choice


def callable_names(params: dict[str, Any]) -> list[str]:
    """The tools a request lets the model call (none when ``tool_choice`` is "none")."""
    if params.get("tool_choice") == "none":
        return []
    return [tool["function"]["name"] for tool in params.get("tools") or []]


def tool_and_format_params(request: LlmRequest, *, adapter: str) -> dict[str, Any]:
    """``tools``, ``tool_choice`` and ``response_format`` for a request (only those set)."""
    params: dict[str, Any] = {}
    tools, choice = build_tools(request, adapter=adapter)
    if tools:
        params["tools"] = tools
    if choice is not None:
        params["tool_choice"] = choice
    response_format = build_response_format(request)
    if response_format is not None:
        params["response_format"] = response_format
    return params


def build_response_format(request: LlmRequest) -> dict[str, Any] | None:
    """``response_format`` for a response schema (or plain JSON mode)."""
    config = request.config
    schema = (
        config.response_schema
        if config.response_schema is not None
        else config.response_json_schema
    )
    if schema is not None:
        return {
            "type": "json_schema",
            "json_schema": {"name": schema_name(schema), "schema": to_json_schema(schema)},
        }
    if config.response_mime_type == "application/json":
        return {"type": "json_object"}
    return None


def sampling_params(config: types.GenerateContentConfig) -> dict[str, Any]:
    """Temperature, top_p, max_tokens, stop, seed and penalties, where set."""
    values = {
        "temperature": config.temperature,
        "top_p": config.top_p,
        "max_tokens": config.max_output_tokens,
        "stop": config.stop_sequences,
        "seed": config.seed,
        "presence_penalty": config.presence_penalty,
        "frequency_penalty": config.frequency_penalty,
    }
    return {k: v for k, v in values.items() if v is not None}


# --- responses ------------------------------------------------------------------------


def finish_reason(value: str | None) -> types.FinishReason | None:
    """An OpenAI ``finish_reason`` as a FinishReason."""
    if value is None:
        return None
    return _FINISH_REASONS.get(value, types.FinishReason.OTHER)


def usage(value: Any) -> types.UsageMetadata | None:
    """An OpenAI ``usage`` object as usage metadata."""
    data = as_dict(value)
    if not data:
        return None
    prompt_details = as_dict(data.get("prompt_tokens_details"))
    output_details = as_dict(data.get("completion_tokens_details"))
    return types.UsageMetadata(
        prompt_token_count=data.get("prompt_tokens"),
        candidates_token_count=data.get("completion_tokens"),
        total_token_count=data.get("total_tokens"),
        cached_content_token_count=prompt_details.get("cached_tokens") or None,
        thoughts_token_count=output_details.get("reasoning_tokens") or None,
    )


def reasoning_of(message: Mapping[str, Any]) -> tuple[str, str] | None:
    """(field, text) of the reasoning in a message or stream delta, if it has any."""
    for name in REASONING_FIELDS:
        value = message.get(name)
        if isinstance(value, str) and value:
            return name, value
    return None


def _reasoning(message: Mapping[str, Any]) -> str | None:
    found = reasoning_of(message)
    return found[1] if found else None


def reasoning_field_of(message_or_chunk: Any) -> str | None:
    """The field an assistant message, or a streamed chunk's delta, carries reasoning in."""
    data = as_dict(message_or_chunk)
    if "choices" in data:
        for choice in data.get("choices") or []:
            found = reasoning_of(as_dict(as_dict(choice).get("delta")))
            if found:
                return found[0]
        return None
    found = reasoning_of(data)
    return found[0] if found else None


def read_message(builder: ResponseBuilder, message: Any, provider_fields: bool = False) -> None:
    """Adds a complete (non-streamed) assistant message to ``builder``."""
    data = as_dict(message)
    blocks = data.get("thinking_blocks") if provider_fields else None
    if blocks:
        for index, block in enumerate(blocks):
            _read_thinking_block(builder, as_dict(block), index)
    elif _reasoning(data):
        builder.text(_reasoning(data) or "", thought=True)
    if data.get("content"):
        builder.text(data["content"])
    if data.get("refusal"):
        builder.text(data["refusal"])
    for index, call in enumerate(data.get("tool_calls") or []):
        _read_tool_call(builder, as_dict(call), index, provider_fields)


def _read_thinking_block(builder: ResponseBuilder, block: dict[str, Any], index: int) -> None:
    if block.get("type") == "redacted_thinking":
        builder.redacted_thought(str(block.get("data", "")).encode())
        return
    builder.text(block.get("thinking") or "", thought=True, key=("thinking", index))
    if block.get("signature"):
        builder.signature(str(block["signature"]).encode(), thought=True, key=("thinking", index))


def _read_tool_call(
    builder: ResponseBuilder, call: dict[str, Any], index: int, provider_fields: bool
) -> None:
    function = as_dict(call.get("function"))
    signature = None
    if provider_fields:
        fields = as_dict(call.get("provider_specific_fields"))
        if fields.get("thought_signature"):
            signature = base64.b64decode(str(fields["thought_signature"]))
    builder.call(
        call.get("index", index),
        call_id=call.get("id"),
        name=function.get("name"),
        arguments=function.get("arguments"),
        signature=signature,
    )


def read_chunk(
    builder: ResponseBuilder, chunk: Any, provider_fields: bool = False
) -> list[LlmResponse]:
    """Adds one streamed chunk to ``builder``; returns the partial responses to yield."""
    data = as_dict(chunk)
    partials: list[LlmResponse] = []
    if data.get("usage"):
        builder.usage = usage(data["usage"])
    if data.get("model"):
        builder.model_version = data["model"]
    for choice in data.get("choices") or []:
        choice = as_dict(choice)
        delta = as_dict(choice.get("delta"))
        reasoning = _reasoning(delta)
        for text, thought in ((reasoning, True), (delta.get("content"), False)):
            if text:
                response = builder.text(text, thought=thought)
                if response is not None:
                    partials.append(response)
        if provider_fields:
            for index, block in enumerate(delta.get("thinking_blocks") or []):
                block = as_dict(block)
                if block.get("signature"):
                    builder.signature(str(block["signature"]).encode(), thought=True)
                elif block.get("type") == "redacted_thinking":
                    _read_thinking_block(builder, block, index)
        for index, call in enumerate(delta.get("tool_calls") or []):
            _read_tool_call(builder, as_dict(call), index, provider_fields)
        if choice.get("finish_reason"):
            builder.finish_reason = finish_reason(choice["finish_reason"])
    return partials
