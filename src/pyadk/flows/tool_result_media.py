"""Media a tool returns (a ``types.Part`` holding an image, audio, a file) moves out of
its result into ``FunctionResponse.parts``, so models receive the media itself rather
than its bytes written as text.

A result that is a part, or a list or tuple whose entries are parts (or hold parts one
container deep), gives up those parts; what is left becomes the ``response`` dict. A
part moves when it has inline bytes and a MIME type, or a file URI and a MIME type;
other parts (text) stay where they are. A dict result is not searched: it is the
ordinary result of every tool call, and looking through it would cost every call.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from pyadk import types
from pyadk.utils.fast_models import construct

_MAX_DEPTH = 1
"""How many containers deep media is looked for: the result's entries, and the entries
of a container among them (bounded, so a self-referencing result is not walked
forever)."""


def as_part(value: Any) -> types.Part | None:
    """``value`` as a pyadk Part (a google-genai ``Part`` is converted), else None."""
    if isinstance(value, types.Part):
        return value
    if isinstance(value, BaseModel) and type(value).__name__ == "Part":
        try:
            return types.Part.model_validate(value)
        except ValueError:
            return None
    return None


def media_part(value: Any) -> types.FunctionResponsePart | None:
    """The function-response part carrying ``value``'s media; None when ``value`` is not
    a part with usable media (bytes or a URI, and a MIME type)."""
    part = as_part(value)
    if part is None:
        return None
    blob = part.inline_data
    if blob is not None and blob.data is not None and blob.mime_type:
        return types.FunctionResponsePart.from_bytes(data=blob.data, mime_type=blob.mime_type)
    file = part.file_data
    if file is not None and file.file_uri and file.mime_type:
        return types.FunctionResponsePart.from_uri(file_uri=file.file_uri, mime_type=file.mime_type)
    return None


def split_media(result: Any, depth: int = 0) -> tuple[Any, list[types.FunctionResponsePart]]:
    """``result`` without its media, and the media (empty: ``result`` is unchanged)."""
    single = media_part(result)
    if single is not None:
        return {}, [single]
    if not isinstance(result, (list, tuple)) and not (depth and isinstance(result, dict)):
        return result, []
    media: list[types.FunctionResponsePart] = []
    if isinstance(result, dict):
        kept_items = {}
        for key, value in result.items():
            keep, kept = _entry(value, media, depth)
            if keep:
                kept_items[key] = kept
        remaining: Any = kept_items
    else:
        remaining = []
        for value in result:
            keep, kept = _entry(value, media, depth)
            if keep:
                remaining.append(kept)
    if not media:
        return result, []
    return remaining or {}, media


def _entry(value: Any, media: list[types.FunctionResponsePart], depth: int) -> tuple[bool, Any]:
    """Whether to keep one entry of a container, and what is left of it."""
    part = media_part(value)
    if part is not None:
        media.append(part)
        return False, None
    if depth >= _MAX_DEPTH or not isinstance(value, (dict, list, tuple)):
        return True, value
    remaining, nested = split_media(value, depth + 1)
    if not nested:
        return True, value
    media.extend(nested)
    return bool(remaining), remaining


def function_response_of(call_id: str | None, name: str, result: Any) -> types.FunctionResponse:
    """The function response of a tool result that is not a dict: media in ``parts``,
    the rest under ``response`` (wrapped as ``{"result": ...}`` unless a dict)."""
    remaining, media = split_media(result)
    response = remaining if isinstance(remaining, dict) else {"result": remaining}
    if media:
        return construct(
            types.FunctionResponse, id=call_id, name=name, response=response, parts=media
        )
    return construct(types.FunctionResponse, id=call_id, name=name, response=response)
