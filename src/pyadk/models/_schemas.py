"""Function declarations and response schemas as standard JSON Schema."""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, TypeAdapter

from pyadk import types

_EMPTY_OBJECT: dict[str, Any] = {"type": "object", "properties": {}}
_GENAI_TYPE_NAMES = {t.value for t in types.Type}


def is_genai_schema_dict(schema: dict[str, Any]) -> bool:
    """True for a dict in google-genai Schema form (upper-case ``type`` such as OBJECT)."""
    kind = schema.get("type")
    return isinstance(kind, str) and kind in _GENAI_TYPE_NAMES


def to_json_schema(schema: Any) -> dict[str, Any]:
    """A JSON Schema dict for a pydantic class, any type pydantic knows (``list[X]``,
    ``str``...), a :class:`types.Schema` (or google-genai Schema), or a dict.

    A dict is taken as JSON Schema, unless its ``type`` is an upper-case genai type name
    (``"OBJECT"``), in which case it is read as a :class:`types.Schema`.
    """
    if isinstance(schema, types.Schema):
        return schema.to_json_schema()
    if isinstance(schema, dict):
        if is_genai_schema_dict(schema):
            return types.Schema.model_validate(schema).to_json_schema()
        return dict(schema)
    if isinstance(schema, BaseModel):  # a google-genai Schema object
        return types.Schema.model_validate(schema).to_json_schema()
    if isinstance(schema, type) and issubclass(schema, BaseModel):
        return schema.model_json_schema()
    return TypeAdapter(schema).json_schema()


def schema_name(schema: Any) -> str:
    """A name for a response schema (``[a-zA-Z0-9_-]``, as OpenAI requires)."""
    name = getattr(schema, "__name__", None)
    if not isinstance(name, str):
        title = schema.get("title") if isinstance(schema, dict) else getattr(schema, "title", None)
        name = title if isinstance(title, str) else "response"
    return re.sub(r"[^a-zA-Z0-9_-]", "_", name)[:64] or "response"


def parameters_schema(declaration: types.FunctionDeclaration) -> dict[str, Any]:
    """The JSON Schema of a function declaration's parameters (an empty object if none)."""
    if declaration.parameters_json_schema is not None:
        return to_json_schema(declaration.parameters_json_schema)
    if declaration.parameters is not None:
        schema = declaration.parameters.to_json_schema()
        if schema.get("type") == "object":
            schema.setdefault("properties", {})
        return schema
    return dict(_EMPTY_OBJECT)


def function_declarations(
    request_tools: list[types.Tool] | None,
) -> list[types.FunctionDeclaration]:
    """Every function declaration of the request's tools."""
    return [d for tool in request_tools or [] for d in tool.function_declarations or [] if d.name]


_BUILTIN_TOOLS = ("google_search", "google_search_retrieval", "code_execution", "url_context")


def builtin_tool_names(request_tools: list[types.Tool] | None) -> list[str]:
    """The provider built-in tools (Gemini's google_search...) among the request's tools."""
    return [
        name
        for tool in request_tools or []
        for name in _BUILTIN_TOOLS
        if getattr(tool, name) is not None
    ]


def closed_objects(schema: Any) -> Any:
    """A copy of a JSON Schema with ``additionalProperties: false`` on every object that
    does not say otherwise (strict structured-output modes require it)."""
    if not isinstance(schema, dict):
        return schema
    out = dict(schema)
    for key in ("properties", "$defs", "definitions"):
        if isinstance(out.get(key), dict):
            out[key] = {name: closed_objects(sub) for name, sub in out[key].items()}
    for key in ("anyOf", "oneOf", "allOf", "prefixItems"):
        if isinstance(out.get(key), list):
            out[key] = [closed_objects(sub) for sub in out[key]]
    if isinstance(out.get("items"), dict):
        out["items"] = closed_objects(out["items"])
    if (out.get("type") == "object" or "properties" in out) and "additionalProperties" not in out:
        out["additionalProperties"] = False
    return out
