"""One pyadk ``types.Part`` <-> one A2A ``Part``, on ADK's wire conventions.

Text travels as a text part (``adk_thought`` in its metadata when the part is a thought);
inline bytes as a ``raw`` file part, file references as a ``url`` part; function calls,
function responses and code parts as data parts whose metadata ``adk_type`` names the
kind. A data part of no known kind arrives as a ``text/plain`` inline blob wrapping its
JSON in ``<a2a_datapart_json>`` tags, and goes back out as the same data part.
"""

from __future__ import annotations

import base64
import json
import logging
from collections.abc import Callable
from typing import Any

from a2a.types import Part as A2APart
from google.protobuf.json_format import MessageToDict

from pyadk import types
from pyadk.a2a.converters.utils import (
    _get_adk_metadata_key,
    metadata_dict,
    struct_from_dict,
    value_from_dict,
)

logger = logging.getLogger(__name__)

A2A_DATA_PART_METADATA_TYPE_KEY = "type"
A2A_DATA_PART_METADATA_IS_LONG_RUNNING_KEY = "is_long_running"
A2A_DATA_PART_METADATA_TYPE_FUNCTION_CALL = "function_call"
A2A_DATA_PART_METADATA_TYPE_FUNCTION_RESPONSE = "function_response"
A2A_DATA_PART_METADATA_TYPE_CODE_EXECUTION_RESULT = "code_execution_result"
A2A_DATA_PART_METADATA_TYPE_EXECUTABLE_CODE = "executable_code"
A2A_DATA_PART_TEXT_MIME_TYPE = "text/plain"
A2A_DATA_PART_START_TAG = b"<a2a_datapart_json>"
A2A_DATA_PART_END_TAG = b"</a2a_datapart_json>"

A2APartToGenAIPartConverter = Callable[[A2APart], "types.Part | list[types.Part] | None"]
GenAIPartToA2APartConverter = Callable[[types.Part], "A2APart | list[A2APart] | None"]

_TYPE_KEY = _get_adk_metadata_key(A2A_DATA_PART_METADATA_TYPE_KEY)
_THOUGHT_KEY = _get_adk_metadata_key("thought")
_SIGNATURE_KEY = _get_adk_metadata_key("thought_signature")

# pyadk part field -> (adk_type value, pyadk model of the data dict)
_DATA_KINDS: dict[str, tuple[str, type[Any]]] = {
    "function_call": (A2A_DATA_PART_METADATA_TYPE_FUNCTION_CALL, types.FunctionCall),
    "function_response": (
        A2A_DATA_PART_METADATA_TYPE_FUNCTION_RESPONSE,
        types.FunctionResponse,
    ),
    "code_execution_result": (
        A2A_DATA_PART_METADATA_TYPE_CODE_EXECUTION_RESULT,
        types.CodeExecutionResult,
    ),
    "executable_code": (A2A_DATA_PART_METADATA_TYPE_EXECUTABLE_CODE, types.ExecutableCode),
}
_FIELD_BY_TYPE = {kind: (field, model) for field, (kind, model) in _DATA_KINDS.items()}


def data_part(data: dict[str, Any], metadata: dict[str, Any] | None = None) -> A2APart:
    """An A2A data part holding ``data`` (and ``metadata`` when given)."""
    part = A2APart()
    part.data.CopyFrom(value_from_dict(data))
    if metadata:
        part.metadata.CopyFrom(struct_from_dict(metadata))
    return part


def text_part(text: str, metadata: dict[str, Any] | None = None) -> A2APart:
    """An A2A text part."""
    part = A2APart(text=text)
    if metadata:
        part.metadata.CopyFrom(struct_from_dict(metadata))
    return part


def data_part_dict(part: A2APart) -> dict[str, Any]:
    """The structured data of an A2A data part as a dict ({} for a non-object value)."""
    value = MessageToDict(part.data)
    return value if isinstance(value, dict) else {"value": value}


def convert_a2a_part_to_genai_part(a2a_part: A2APart) -> types.Part | None:
    """The pyadk part an A2A part stands for, or None (logged) when it has no content."""
    meta = metadata_dict(a2a_part)
    kind = a2a_part.WhichOneof("content")
    if kind == "text":
        thought = meta.get(_THOUGHT_KEY)
        return types.Part(text=a2a_part.text, thought=thought if thought is True else None)
    if kind == "url":
        return types.Part(
            file_data=types.FileData(
                file_uri=a2a_part.url,
                mime_type=a2a_part.media_type or None,
                display_name=a2a_part.filename or None,
            )
        )
    if kind == "raw":
        return types.Part(
            inline_data=types.Blob(
                data=a2a_part.raw,
                mime_type=a2a_part.media_type or None,
                display_name=a2a_part.filename or None,
            )
        )
    if kind == "data":
        return _data_to_genai(a2a_part, meta)
    logger.warning("Cannot convert an A2A part without content: %s", a2a_part)
    return None


def _data_to_genai(a2a_part: A2APart, meta: dict[str, Any]) -> types.Part:
    data = data_part_dict(a2a_part)
    known = _FIELD_BY_TYPE.get(str(meta.get(_TYPE_KEY)))
    if known is None:
        wrapped = A2A_DATA_PART_START_TAG + json.dumps(data).encode() + A2A_DATA_PART_END_TAG
        return types.Part(
            inline_data=types.Blob(data=wrapped, mime_type=A2A_DATA_PART_TEXT_MIME_TYPE)
        )
    field, model = known
    signature = meta.get(_SIGNATURE_KEY)
    return types.Part(
        **{field: model.model_validate(data)},
        thought_signature=base64.b64decode(signature) if isinstance(signature, str) else None,
    )


def convert_genai_part_to_a2a_part(part: types.Part) -> A2APart | None:
    """The A2A part carrying a pyadk part, or None (logged) for an empty part."""
    if part.text is not None:
        return text_part(part.text, {_THOUGHT_KEY: True} if part.thought else None)
    if part.file_data is not None:
        file_part = A2APart(url=part.file_data.file_uri or "")
        file_part.media_type = part.file_data.mime_type or ""
        if part.file_data.display_name:
            file_part.filename = part.file_data.display_name
        return file_part
    if part.inline_data is not None:
        return _blob_to_a2a(part.inline_data)
    for field, (kind, _model) in _DATA_KINDS.items():
        value = getattr(part, field)
        if value is None:
            continue
        meta: dict[str, Any] = {_TYPE_KEY: kind}
        if part.thought_signature is not None:
            meta[_SIGNATURE_KEY] = base64.b64encode(part.thought_signature).decode()
        return data_part(value.model_dump(mode="json", by_alias=True, exclude_none=True), meta)
    logger.warning("Cannot convert an empty part to A2A: %s", part)
    return None


def _blob_to_a2a(blob: types.Blob) -> A2APart | None:
    raw = blob.data
    if raw is None:
        return None
    if (
        blob.mime_type == A2A_DATA_PART_TEXT_MIME_TYPE
        and raw.startswith(A2A_DATA_PART_START_TAG)
        and raw.endswith(A2A_DATA_PART_END_TAG)
    ):
        payload = json.loads(raw[len(A2A_DATA_PART_START_TAG) : -len(A2A_DATA_PART_END_TAG)])
        if isinstance(payload, dict):
            return data_part(payload)
    file_part = A2APart(raw=raw)
    file_part.media_type = blob.mime_type or ""
    if blob.display_name:
        file_part.filename = blob.display_name
    return file_part
