"""Metadata key naming and protobuf helpers shared by the A2A converters."""

from __future__ import annotations

from typing import Any

from google.protobuf.json_format import MessageToDict, ParseDict
from google.protobuf.struct_pb2 import Struct, Value

ADK_METADATA_KEY_PREFIX = "adk_"
"""Prefix of the metadata keys pyadk writes on A2A parts, messages and updates."""


def _get_adk_metadata_key(key: str) -> str:
    """``key`` with the ``adk_`` prefix, the way ADK names its A2A metadata."""
    if not key:
        raise ValueError("Metadata key cannot be empty")
    return ADK_METADATA_KEY_PREFIX + key


def struct_from_dict(data: dict[str, Any]) -> Struct:
    """A protobuf Struct holding ``data`` (numbers become floats, as JSON has one kind)."""
    struct = Struct()
    ParseDict(data, struct)
    return struct


def value_from_dict(data: dict[str, Any]) -> Value:
    """A protobuf Value whose struct_value holds ``data``."""
    value = Value()
    value.struct_value.CopyFrom(struct_from_dict(data))
    return value


def to_dict(message: Any) -> dict[str, Any]:
    """A protobuf message (Struct, Part, Task, ...) as a plain JSON-style dict."""
    result: dict[str, Any] = MessageToDict(message)
    return result


def metadata_dict(owner: Any) -> dict[str, Any]:
    """The ``metadata`` Struct of a proto message as a dict ({} when unset)."""
    if owner is None or not owner.HasField("metadata"):
        return {}
    return to_dict(owner.metadata)
