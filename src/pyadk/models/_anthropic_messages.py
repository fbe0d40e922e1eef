"""pyadk requests and responses in the Anthropic Messages wire format.

Thinking blocks become thought parts whose ``thought_signature`` holds the block's
signature (UTF-8); a redacted thinking block becomes a thought part without text whose
``thought_signature`` holds its data. Both are sent back unchanged, in order.

Media a tool returned (``FunctionResponse.parts``) goes inside its ``tool_result``: after
a text block holding the JSON response, an image or document block per part.
"""

from __future__ import annotations

import base64
from typing import Any

from pyadk import types
from pyadk.errors import BadRequestError
from pyadk.models._history import ensure_user_turn, paired_history, response_text
from pyadk.models._schemas import (
    builtin_tool_names,
    closed_objects,
    function_declarations,
    parameters_schema,
    to_json_schema,
)
from pyadk.models._streaming import ResponseBuilder
from pyadk.models.llm_request import LlmRequest
from pyadk.models.llm_response import LlmResponse

_STOP_REASONS = {
    "end_turn": types.FinishReason.STOP,
    "stop_sequence": types.FinishReason.STOP,
    "tool_use": types.FinishReason.STOP,
    "pause_turn": types.FinishReason.STOP,
    "max_tokens": types.FinishReason.MAX_TOKENS,
    "model_context_window_exceeded": types.FinishReason.MAX_TOKENS,
    "refusal": types.FinishReason.SAFETY,
}
_DOCUMENT_TYPES = {"application/pdf"}
_TOOL_RESULT_IMAGE_TYPES = {"image/jpeg", "image/png", "image/gif", "image/webp"}
_OPENING = "(The conversation so far follows.)"


def _get(obj: Any, key: str) -> Any:
    return obj.get(key) if isinstance(obj, dict) else getattr(obj, key, None)


# --- requests -------------------------------------------------------------------------


def build_messages(request: LlmRequest) -> list[dict[str, Any]]:
    """The ``messages`` of a Messages API request."""
    messages = []
    for content in paired_history(ensure_user_turn(list(request.contents))):
        if content.role == "model":
            blocks = [b for p in content.parts or [] if (b := _assistant_block(p)) is not None]
        else:
            blocks = [b for p in content.parts or [] if (b := _user_block(p)) is not None]
        if blocks:
            messages.append(
                {"role": "assistant" if content.role == "model" else "user", "content": blocks}
            )
    if messages and messages[0]["role"] == "assistant":  # the API wants a user turn first
        messages.insert(0, {"role": "user", "content": [{"type": "text", "text": _OPENING}]})
    return messages


def _assistant_block(part: types.Part) -> dict[str, Any] | None:
    if part.function_call is not None:
        call = part.function_call
        return {"type": "tool_use", "id": call.id, "name": call.name, "input": call.args or {}}
    if part.thought:
        if part.thought_signature is None:
            return None  # reasoning from another provider: Claude cannot verify it
        signature = part.thought_signature.decode(errors="replace")
        if part.text is None:
            return {"type": "redacted_thinking", "data": signature}
        return {"type": "thinking", "thinking": part.text, "signature": signature}
    if part.text:
        return {"type": "text", "text": part.text}
    return None


def _user_block(part: types.Part) -> dict[str, Any] | None:
    if part.function_response is not None:
        response = part.function_response
        content: str | list[dict[str, Any]] = response_text(response)
        if response.parts:
            content = [{"type": "text", "text": content}, *map(_media_block, response.parts)]
        return {"type": "tool_result", "tool_use_id": response.id, "content": content}
    if part.thought:
        return None
    if part.text is not None:
        return {"type": "text", "text": part.text} if part.text else None
    if part.inline_data is not None and part.inline_data.data is not None:
        mime = part.inline_data.mime_type or "application/octet-stream"
        source = {
            "type": "base64",
            "media_type": mime,
            "data": base64.b64encode(part.inline_data.data).decode(),
        }
        if mime.startswith("image/"):
            return {"type": "image", "source": source}
        if mime in _DOCUMENT_TYPES:
            return {"type": "document", "source": source}
        if mime.startswith("text/"):
            return {"type": "text", "text": part.inline_data.data.decode(errors="replace")}
        raise BadRequestError(f"Claude cannot send inline data of type {mime!r}.")
    if part.file_data is not None:
        uri, mime = part.file_data.file_uri or "", part.file_data.mime_type or ""
        if uri.startswith(("http://", "https://")):
            kind = "document" if mime in _DOCUMENT_TYPES else "image"
            return {"type": kind, "source": {"type": "url", "url": uri}}
        raise BadRequestError(f"Claude cannot send a file reference {uri!r}.")
    if part.executable_code is not None:
        return {"type": "text", "text": f"```\n{part.executable_code.code}\n```"}
    if part.code_execution_result is not None:
        return {"type": "text", "text": part.code_execution_result.output or ""}
    return None


def _media_block(part: types.FunctionResponsePart) -> dict[str, Any]:
    """A block of a ``tool_result``'s content for media a tool returned: an image or a
    PDF (base64 bytes, or an http(s) URL); anything else becomes a text note, so the
    conversation goes on without it."""
    blob, file = part.inline_data, part.file_data
    if blob is not None and blob.data is not None:
        mime = _bare_mime(blob.mime_type or "application/octet-stream")
        source: dict[str, Any] = {
            "type": "base64",
            "media_type": mime,
            "data": base64.b64encode(blob.data).decode(),
        }
        what = mime
    elif file is not None and file.file_uri:
        mime = _bare_mime(file.mime_type or "")
        source = {"type": "url", "url": file.file_uri}
        what = f"{file.file_uri} ({mime or 'no type'})"
        if not file.file_uri.startswith(("http://", "https://")):
            mime = ""  # Claude fetches only web URLs
    else:
        return {"type": "text", "text": "[empty media part omitted]"}
    if mime in _TOOL_RESULT_IMAGE_TYPES:
        return {"type": "image", "source": source}
    if mime in _DOCUMENT_TYPES:
        return {"type": "document", "source": source}
    return {"type": "text", "text": f"[{what} omitted: Claude cannot receive it in a tool result]"}


def _bare_mime(mime: str) -> str:
    """``image/PNG; x=y`` -> ``image/png``."""
    return mime.split(";", 1)[0].strip().lower()


def build_tools(request: LlmRequest) -> tuple[list[dict[str, Any]] | None, dict[str, Any] | None]:
    """(``tools``, ``tool_choice``): AUTO -> auto, ANY -> any (or the single allowed
    tool), NONE -> none; ``allowed_function_names`` narrows the declared tools.
    Gemini's built-in tools raise BadRequestError."""
    builtin = builtin_tool_names(request.config.tools)
    if builtin:
        raise BadRequestError(f"Claude cannot use Gemini built-in tools: {', '.join(builtin)}.")
    config = request.config.tool_config
    calling = config.function_calling_config if config is not None else None
    mode = calling.mode if calling is not None else None
    allowed = calling.allowed_function_names if calling is not None else None
    declarations = function_declarations(request.config.tools)
    if allowed:
        declarations = [d for d in declarations if d.name in allowed]
    if not declarations:
        return None, None
    tools = [
        {"name": d.name, "description": d.description or "", "input_schema": parameters_schema(d)}
        for d in declarations
    ]
    choice: dict[str, Any] | None = None
    if mode == types.FunctionCallingConfigMode.NONE:
        choice = {"type": "none"}
    elif mode == types.FunctionCallingConfigMode.ANY:
        choice = {"type": "any"}
        if len(declarations) == 1:
            choice = {"type": "tool", "name": declarations[0].name}
    elif mode == types.FunctionCallingConfigMode.AUTO:
        choice = {"type": "auto"}
    return tools, choice


def build_output_format(request: LlmRequest) -> dict[str, Any] | None:
    """``output_config`` asking for JSON matching the response schema, if there is one."""
    config = request.config
    schema = config.response_schema
    if schema is None:
        schema = config.response_json_schema
    if schema is None:
        return None
    return {"format": {"type": "json_schema", "schema": closed_objects(to_json_schema(schema))}}


# --- responses ------------------------------------------------------------------------


def stop_reason(value: str | None) -> types.FinishReason | None:
    """An Anthropic ``stop_reason`` as a FinishReason."""
    if value is None:
        return None
    return _STOP_REASONS.get(value, types.FinishReason.OTHER)


def usage(value: Any, previous: types.UsageMetadata | None = None) -> types.UsageMetadata | None:
    """Anthropic usage as usage metadata; prompt tokens include cached ones.

    Streamed ``message_delta`` usage is cumulative and may omit input counts, so missing
    values keep those of ``previous``.
    """
    if value is None:
        return previous
    cache_read = _get(value, "cache_read_input_tokens")
    cache_write = _get(value, "cache_creation_input_tokens")
    inputs = _get(value, "input_tokens")
    prompt = None
    if inputs is not None:
        prompt = inputs + (cache_read or 0) + (cache_write or 0)
    elif previous is not None:
        prompt = previous.prompt_token_count
    output = _get(value, "output_tokens")
    if output is None and previous is not None:
        output = previous.candidates_token_count
    if cache_read is None and previous is not None:
        cache_read = previous.cached_content_token_count
    total = (prompt or 0) + (output or 0) if prompt is not None or output is not None else None
    return types.UsageMetadata(
        prompt_token_count=prompt,
        candidates_token_count=output,
        total_token_count=total,
        cached_content_token_count=cache_read or None,
    )


def read_block(builder: ResponseBuilder, block: Any, index: int) -> LlmResponse | None:
    """Adds a content block (whole, or the start of a streamed one) to ``builder``."""
    kind = _get(block, "type")
    if kind == "text":
        return builder.text(_get(block, "text") or "", key=index)
    if kind == "thinking":
        partial = builder.text(_get(block, "thinking") or "", thought=True, key=index)
        if _get(block, "signature"):
            builder.signature(_get(block, "signature").encode(), thought=True, key=index)
        return partial
    if kind == "redacted_thinking":
        builder.redacted_thought(str(_get(block, "data") or "").encode())
    elif kind == "tool_use":
        block_input = _get(block, "input")
        builder.call(
            index,
            call_id=_get(block, "id"),
            name=_get(block, "name"),
            args=block_input if block_input else None,
        )
    return None


def read_delta(builder: ResponseBuilder, delta: Any, index: int) -> LlmResponse | None:
    """Adds a ``content_block_delta`` to ``builder``; returns a partial for text."""
    kind = _get(delta, "type")
    if kind == "text_delta":
        return builder.text(_get(delta, "text") or "", key=index)
    if kind == "thinking_delta":
        return builder.text(_get(delta, "thinking") or "", thought=True, key=index)
    if kind == "signature_delta":
        builder.signature(str(_get(delta, "signature")).encode(), thought=True, key=index)
    elif kind == "input_json_delta":
        builder.call(index, arguments=_get(delta, "partial_json") or "", args=None)
    return None
