"""ToolConfirmation: a person's answer to a tool call that needs approval."""

import json
from typing import Any

from pyadk import types
from pyadk.events.client_requests import REQUEST_CONFIRMATION_FUNCTION_CALL_NAME
from pyadk.types import _Base


class ToolConfirmation(_Base):
    """Asked for by a tool call that needs approval; sent back by the client as the
    response to the ``adk_request_confirmation`` call."""

    hint: str = ""
    """Why approval is needed, for the person asked."""
    confirmed: bool = False
    """Approved (True) or rejected (False)."""
    payload: Any | None = None
    """Data the person adds (JSON), read by the tool as ``tool_context.tool_confirmation``."""

    @classmethod
    def from_response_dict(cls, response: dict[str, Any] | None) -> "ToolConfirmation":
        """The confirmation a client sent: the fields themselves, or google-adk's web
        client's ``{"response": "<json>"}`` wrapper. ValueError when it is neither."""
        data: Any = response or {}
        if isinstance(data, dict) and set(data) == {"response"}:
            inner = data["response"]
            data = json.loads(inner) if isinstance(inner, str) else inner
        if not isinstance(data, dict):
            raise ValueError(f"A tool confirmation is a JSON object, got {response!r}.")
        return cls.model_validate(data)


def confirmation_requests(event: Any) -> list[types.FunctionCall]:
    """The ``adk_request_confirmation`` calls of ``event`` (a turn's last event when it
    waits for approval); each one's ``args["originalFunctionCall"]`` is the call."""
    return [
        call
        for call in event.get_function_calls()
        if call.name == REQUEST_CONFIRMATION_FUNCTION_CALL_NAME
    ]


def confirmation_answer(
    request: types.FunctionCall | str, *, confirmed: bool, payload: Any = None
) -> types.Content:
    """The user message that approves (or rejects) the request ``request`` (a request
    call, or its id); send it as the next turn's ``new_message``."""
    request_id = request if isinstance(request, str) else request.id
    answer = ToolConfirmation(confirmed=confirmed, payload=payload)
    response = types.FunctionResponse(
        id=request_id,
        name=REQUEST_CONFIRMATION_FUNCTION_CALL_NAME,
        response=answer.model_dump(exclude_none=True),
    )
    return types.Content(role="user", parts=[types.Part(function_response=response)])


def confirmation_answers(content: types.Content | None) -> list[types.FunctionResponse]:
    """The answers to ``adk_request_confirmation`` calls in a user's message (usually
    none: one check a part)."""
    if content is None or not content.parts:
        return []
    return [
        part.function_response
        for part in content.parts
        if part.function_response is not None
        and part.function_response.name == REQUEST_CONFIRMATION_FUNCTION_CALL_NAME
    ]
