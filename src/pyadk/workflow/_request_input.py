"""RequestInput: a node asks the client for a value and waits for the answer."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError
from pydantic.alias_generators import to_camel

from pyadk import types
from pyadk.events.client_requests import REQUEST_INPUT_FUNCTION_CALL_NAME
from pyadk.events.event import Event
from pyadk.utils.ids import new_uuid4
from pyadk.workflow._errors import InputAnswerError
from pyadk.workflow._node_events import NODE_INFO

if TYPE_CHECKING:
    from pyadk.agents.invocation_context import InvocationContext


_RESULT = "result"
_JSON_TYPES: dict[str, type[Any]] = {
    "integer": int,
    "number": float,
    "string": str,
    "boolean": bool,
    "array": list,
    "object": dict,
}


class RequestInput(BaseModel):
    """Yielded (or returned) by a node to ask the client for input.

    The run writes an ``adk_request_input`` function call (id ``interrupt_id``,
    long-running) and the node waits. The client answers with a function
    response of that name and id; ``{"result": value}`` is read as ``value``
    (a JSON string is parsed), checked against ``response_schema`` (a type, or
    a JSON schema dict). The answer becomes the node's output, or, for a node
    with ``rerun_on_resume=True``, ``ctx.resume_inputs[interrupt_id]`` of its
    next run.
    """

    model_config = ConfigDict(
        arbitrary_types_allowed=True, alias_generator=to_camel, populate_by_name=True
    )

    interrupt_id: str = Field(default_factory=new_uuid4)
    payload: Any = None
    """Anything the client needs to answer."""
    message: str | None = None
    """What to show the user."""
    response_schema: Any = None
    """The answer's type (a Python type or a JSON schema dict; None: anything)."""


def json_schema(schema: Any) -> dict[str, Any] | None:
    """``schema`` as a JSON schema (a dict is taken as one already)."""
    if schema is None or isinstance(schema, dict):
        return schema
    return TypeAdapter(schema).json_schema()


def request_event(ic: InvocationContext, *, author: str, path: str, request: RequestInput) -> Event:
    """The event asking the client for ``request``'s input."""
    args = request.model_dump(by_alias=True, exclude={"response_schema"})
    args["response_schema"] = json_schema(request.response_schema)
    call = types.FunctionCall(
        id=request.interrupt_id, name=REQUEST_INPUT_FUNCTION_CALL_NAME, args=args
    )
    return Event(
        invocation_id=ic.invocation_id,
        author=author,
        branch=ic.branch,
        content=types.Content(role="model", parts=[types.Part(function_call=call)]),
        long_running_tool_ids={request.interrupt_id},
        custom_metadata={NODE_INFO: {"path": path}},
    )


def answer_value(response: Any, schema: dict[str, Any] | None) -> Any:
    """The value a client's function response gives, checked against ``schema``."""
    value = text = response
    if isinstance(value, dict) and set(value) == {_RESULT}:
        value = text = value[_RESULT]
        if isinstance(value, str):
            try:
                value = json.loads(value)
            except ValueError:
                pass
    target = _JSON_TYPES.get(str(schema.get("type"))) if schema else None
    if target is None:
        return value
    if target is str and isinstance(text, str):
        return text
    try:
        return TypeAdapter(target).validate_python(value)
    except ValidationError as error:
        reason = "; ".join(str(e["msg"]) for e in error.errors(include_url=False))
        raise InputAnswerError(
            f"The answer {value!r} does not fit the requested input ({schema}): {reason}"
        ) from error
