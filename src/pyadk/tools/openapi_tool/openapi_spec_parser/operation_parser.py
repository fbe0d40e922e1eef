"""One OpenAPI operation -> the tool's arguments and their JSON Schema."""

from __future__ import annotations

from typing import Any

from pyadk.tools.openapi_tool.common.common import (
    ApiParameter,
    rename_python_keywords,
    to_snake_case,
)

_MAX_TOOL_NAME_LENGTH = 60
"""Tool names are cut to this length (Gemini allows 64 characters), as in google-adk."""

_JSON_TYPES = frozenset({"array", "boolean", "integer", "null", "number", "object", "string"})
_KEPT_KEYWORDS = (
    "title",
    "description",
    "format",
    "enum",
    "const",
    "default",
    "required",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "pattern",
    "minItems",
    "maxItems",
    "uniqueItems",
    "minProperties",
    "maxProperties",
)
_LOCATIONS = ("path", "query", "header", "cookie")


def required_scheme_name(security: Any) -> str:
    """The security scheme a ``security`` list requires ('' if none, or if optional)."""
    if not isinstance(security, list) or not security:
        return ""
    if any(not requirement for requirement in security):  # {} = authentication optional
        return ""
    first = security[0]
    return next(iter(first), "") if isinstance(first, dict) else ""


def to_declaration_schema(schema: Any) -> dict[str, Any]:
    """An OpenAPI schema (refs inlined) as plain JSON Schema for a function declaration:
    OpenAPI-only keywords dropped, ``nullable`` folded into ``type``, unknown types
    removed."""
    if not isinstance(schema, dict):
        return {}
    out: dict[str, Any] = {}
    kind = schema.get("type")
    if isinstance(kind, str) and kind.lower() in _JSON_TYPES:
        out["type"] = kind.lower()
    elif isinstance(kind, list):
        kinds = [k.lower() for k in kind if isinstance(k, str) and k.lower() in _JSON_TYPES]
        if kinds:
            out["type"] = kinds if len(kinds) > 1 else kinds[0]
    if schema.get("nullable") is True and isinstance(out.get("type"), str):
        out["type"] = [out["type"], "null"]
    for key in _KEPT_KEYWORDS:
        if key in schema:
            out[key] = schema[key]
    if isinstance(schema.get("properties"), dict):
        out["properties"] = {
            name: to_declaration_schema(sub) for name, sub in schema["properties"].items()
        }
    if isinstance(schema.get("items"), dict):
        out["items"] = to_declaration_schema(schema["items"])
    additional = schema.get("additionalProperties")
    if isinstance(additional, bool):
        out["additionalProperties"] = additional
    elif isinstance(additional, dict):
        out["additionalProperties"] = to_declaration_schema(additional)
    for key in ("anyOf", "oneOf", "allOf"):
        if isinstance(schema.get(key), list):
            out[key] = [to_declaration_schema(sub) for sub in schema[key]]
    return out


def object_schema(schema: Any) -> dict[str, Any] | None:
    """``schema`` as one object schema (``allOf`` of objects merged), or None."""
    if not isinstance(schema, dict):
        return None
    if schema.get("type") == "object" or ("type" not in schema and "properties" in schema):
        return schema
    parts = schema.get("allOf")
    if "type" in schema or not isinstance(parts, list) or not parts:
        return None
    merged: dict[str, Any] = {"type": "object", "properties": {}, "required": []}
    for part in parts:
        member = object_schema(part)
        if member is None:
            return None
        merged["properties"].update(member.get("properties") or {})
        merged["required"] += [
            r for r in member.get("required") or [] if r not in merged["required"]
        ]
    if schema.get("description"):
        merged["description"] = schema["description"]
    return merged


class OperationParser:
    """Reads one operation (a dict with its ``$ref``s inlined): its parameters, request
    body and name. ``where`` (e.g. ``"GET /pets"``) names it in errors."""

    def __init__(
        self,
        operation: dict[str, Any],
        *,
        preserve_property_names: bool = False,
        where: str = "operation",
    ) -> None:
        self._operation = operation
        self._preserve = preserve_property_names
        self._where = where
        self.body_media_type: str | None = None
        """The request body's media type the tool sends (JSON when offered)."""
        self.body_is_object = False
        """Whether the body's properties are separate arguments (else one ``body``/``array``)."""
        self._params: list[ApiParameter] = []
        self._process_parameters()
        self._process_request_body()
        self._dedupe_param_names()

    def _py_name(self, original: str) -> str:
        return rename_python_keywords(original) if self._preserve else ""

    def _process_parameters(self) -> None:
        for index, param in enumerate(self._operation.get("parameters") or []):
            if not isinstance(param, dict) or not isinstance(param.get("name"), str):
                raise ValueError(
                    f"Invalid OpenAPI spec: parameter {index} of {self._where} has no name."
                )
            location = param.get("in")
            if location not in _LOCATIONS:
                raise ValueError(
                    f"Invalid OpenAPI spec: parameter {param['name']!r} of {self._where} has "
                    f"'in': {location!r}; expected one of {', '.join(_LOCATIONS)}."
                )
            schema = to_declaration_schema(param.get("schema") or _content_schema(param))
            description = str(param.get("description") or "")
            if description and not schema.get("description"):
                schema["description"] = description
            self._params.append(
                ApiParameter(
                    original_name=param["name"],
                    param_location=location,
                    param_schema=schema,
                    description=description,
                    # a URL cannot be built without its path parameters
                    required=location == "path" or bool(param.get("required")),
                    py_name=self._py_name(param["name"]),
                )
            )

    def _process_request_body(self) -> None:
        body = self._operation.get("requestBody")
        if not isinstance(body, dict) or not isinstance(body.get("content"), dict):
            return
        content: dict[str, Any] = body["content"]
        if not content:
            return
        media_type = next((m for m in content if _is_json(m)), next(iter(content)))
        self.body_media_type = media_type
        media = content[media_type] if isinstance(content[media_type], dict) else {}
        raw_schema = media.get("schema") or {}
        description = str(body.get("description") or "")
        merged = object_schema(raw_schema)
        if merged is not None:
            self.body_is_object = True
            required = set(merged.get("required") or [])
            for name, sub in (merged.get("properties") or {}).items():
                schema = to_declaration_schema(sub)
                self._params.append(
                    ApiParameter(
                        original_name=name,
                        param_location="body",
                        param_schema=schema,
                        description=str(schema.get("description") or ""),
                        required=name in required,
                        py_name=self._py_name(name),
                    )
                )
            return
        schema = to_declaration_schema(raw_schema)
        if description and not schema.get("description"):
            schema["description"] = description
        is_array = schema.get("type") == "array"
        self._params.append(
            ApiParameter(
                original_name="array" if is_array else "body",
                param_location="body",
                param_schema=schema,
                description=description,
                required=bool(body.get("required")),
            )
        )

    def _dedupe_param_names(self) -> None:
        seen: dict[str, int] = {}
        for param in self._params:
            count = seen.get(param.py_name)
            if count is None:
                seen[param.py_name] = 0
            else:
                seen[param.py_name] = count + 1
                param.py_name = f"{param.py_name}_{count}"

    def get_function_name(self) -> str:
        """The tool name: the operationId in snake_case, cut to 60 characters."""
        operation_id = self._operation.get("operationId")
        if not operation_id:
            raise ValueError(f"Invalid OpenAPI spec: {self._where} has no operationId.")
        return to_snake_case(str(operation_id))[:_MAX_TOOL_NAME_LENGTH]

    def get_parameters(self) -> list[ApiParameter]:
        """The tool's arguments, in order: path/query/header/cookie, then body."""
        return self._params

    def get_auth_scheme_name(self) -> str:
        """The security scheme this operation itself requires ('' if none)."""
        return required_scheme_name(self._operation.get("security"))

    def get_json_schema(self) -> dict[str, Any]:
        """The JSON Schema of the tool's arguments (the declaration's parameters)."""
        properties: dict[str, Any] = {}
        for param in self._params:
            schema = dict(param.param_schema)
            if param.description and not schema.get("description"):
                schema["description"] = param.description
            properties[param.py_name] = schema
        return {
            "type": "object",
            "properties": properties,
            "required": [p.py_name for p in self._params if p.required],
        }


def _content_schema(param: dict[str, Any]) -> Any:
    """The schema of a parameter declared with ``content`` instead of ``schema``."""
    content = param.get("content")
    if isinstance(content, dict):
        for media in content.values():
            if isinstance(media, dict) and "schema" in media:
                return media["schema"]
    return {}


def _is_json(media_type: str) -> bool:
    base = media_type.split(";", 1)[0].strip().lower()
    return base == "application/json" or base.endswith("+json")


__all__ = ["OperationParser", "object_schema", "required_scheme_name", "to_declaration_schema"]
