"""What the embedded model may output for a request: calls, an answer, or either.

A small model calls tools reliably only when its output is constrained. For a request
with function declarations the output must be one of ``{"name": <tool>, "arguments":
<its parameters schema>}``, or the answer: free text (which may not start like JSON), or
JSON matching ``response_schema`` when there is one. ``tool_config`` narrows this: ANY
allows only calls (of ``allowed_function_names`` when given), NONE only the answer.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import Any

from pyadk import types
from pyadk.models._schemas import function_declarations, parameters_schema, to_json_schema
from pyadk.models.llm_request import LlmRequest
from pyadk.models.local._prompt import tool_entry
from pyadk.models.local._runtime import Constraint

logger = logging.getLogger(__name__)

_CALL_MODES = (types.FunctionCallingConfigMode.ANY,)


@dataclass(frozen=True)
class OutputPlan:
    """The tools shown in the prompt, the callable names, the answer schema and the
    resulting constraint."""

    tools: list[dict[str, Any]]
    callable_names: list[str]
    answer_schema: dict[str, Any] | None
    constraint: Constraint
    forced: bool = False
    """True when the output must be a call (tool_config mode ANY)."""

    @property
    def json_answer(self) -> bool:
        """True when the answer is JSON (a response schema was requested)."""
        return self.answer_schema is not None


def latest_calls(contents: list[types.Content]) -> set[str]:
    """Keys (see :func:`call_key`) of the calls whose responses end the history."""
    index = len(contents) - 1
    while index >= 0 and all(
        p.function_response is not None for p in contents[index].parts or [types.Part()]
    ):
        index -= 1
    if index < 0 or index == len(contents) - 1:
        return set()
    return {
        call_key(p.function_call.name or "", p.function_call.args or {})
        for p in contents[index].parts or []
        if p.function_call is not None
    }


def call_key(name: str, args: dict[str, Any]) -> str:
    """A call's identity: its name and canonical JSON arguments."""
    return name + json.dumps(args, sort_keys=True, default=str)


def call_schema(name: str, parameters: dict[str, Any]) -> dict[str, Any]:
    """The JSON Schema of one call of function ``name``."""
    arguments = dict(parameters)
    if arguments.get("type") == "object" and "additionalProperties" not in arguments:
        arguments["additionalProperties"] = False
    return {
        "type": "object",
        "properties": {"name": {"const": name}, "arguments": arguments},
        "required": ["name", "arguments"],
        "additionalProperties": False,
    }


def any_of(schemas: list[dict[str, Any]]) -> dict[str, Any]:
    """One schema accepting any of ``schemas``; their ``$defs`` are moved to the root so
    ``#/$defs/...`` references keep resolving."""
    if len(schemas) == 1:
        return schemas[0]
    defs: dict[str, Any] = {}
    options: list[dict[str, Any]] = []
    for schema in schemas:
        option = dict(schema)
        for name, definition in (option.pop("$defs", None) or {}).items():
            if name in defs and defs[name] != definition:
                logger.warning("Two schemas define $defs/%s differently; keeping the first.", name)
                continue
            defs[name] = definition
        options.append(option)
    combined: dict[str, Any] = {"anyOf": options}
    if defs:
        combined["$defs"] = defs
    return combined


def answer_schema_of(config: types.GenerateContentConfig) -> dict[str, Any] | None:
    """The JSON Schema the answer must match (``response_json_schema`` or
    ``response_schema``), or None for free text."""
    if config.response_json_schema is not None:
        return to_json_schema(config.response_json_schema)
    if config.response_schema is not None:
        return to_json_schema(config.response_schema)
    if config.response_mime_type == "application/json":
        return {"type": "object"}
    return None


def plan_output(
    request: LlmRequest, exclude: frozenset[str] = frozenset(), json_text: bool = False
) -> OutputPlan:
    """The output plan for ``request`` (see the module docstring).

    Functions named in ``exclude`` stay listed in the prompt (so the prompt, and the
    runtime's prompt cache, do not change) but may not be called. ``json_text`` lets free
    text be JSON too (whose first key does not start with "n", which only a call may).
    """
    config = request.config
    declarations = function_declarations(config.tools)
    calling = config.tool_config.function_calling_config if config.tool_config else None
    mode = calling.mode if calling and calling.mode else types.FunctionCallingConfigMode.AUTO
    declared = declarations
    if mode == types.FunctionCallingConfigMode.NONE:
        declarations = []
    elif mode in _CALL_MODES and calling and calling.allowed_function_names:
        allowed = set(calling.allowed_function_names)
        declarations = [d for d in declarations if d.name in allowed]
    tools = [tool_entry(d.name or "", d.description, parameters_schema(d)) for d in declarations]
    callable_ = [d for d in declarations if d.name not in exclude]
    answer = answer_schema_of(config)
    calls = [call_schema(d.name or "", parameters_schema(d)) for d in callable_]
    names = [d.name or "" for d in callable_]
    if calls and mode in _CALL_MODES:
        constraint = Constraint(any_of(calls), allow_text=False)
    elif calls and answer is not None:
        constraint = Constraint(any_of([*calls, answer]), allow_text=False)
    elif calls:
        constraint = Constraint(any_of(calls), allow_text=True, json_text=json_text)
    elif answer is not None:
        constraint = Constraint(answer, allow_text=False)
    else:
        constraint = Constraint(text_guard=bool(declared), json_text=json_text)
    return OutputPlan(tools, names, answer, constraint, forced=bool(calls) and mode in _CALL_MODES)


def answer_instruction(answer_schema: dict[str, Any]) -> str:
    """The system-prompt line that tells the model the answer's JSON shape."""
    return (
        "When you answer, reply with only a JSON value matching this JSON schema:\n"
        + json.dumps(answer_schema, ensure_ascii=False)
    )
