"""Helpers of the node-gate tests: find the client requests of a turn, answer them."""

from __future__ import annotations

from typing import Any

from pyadk import types
from pyadk.events import Event
from pyadk.events.client_requests import REQUEST_EUC_FUNCTION_CALL_NAME
from pyadk.workflow import REQUEST_INPUT_FUNCTION_CALL_NAME


def calls_named(events: list[Event], name: str) -> list[types.FunctionCall]:
    return [c for e in events for c in e.get_function_calls() if c.name == name]


def approval_requests(events: list[Event]) -> list[types.FunctionCall]:
    """The ``adk_request_input`` calls asking to approve a call."""
    return [
        c
        for c in calls_named(events, REQUEST_INPUT_FUNCTION_CALL_NAME)
        if (c.id or "").startswith("wf_tool_confirmation:")
    ]


def credential_requests(events: list[Event]) -> list[types.FunctionCall]:
    return calls_named(events, REQUEST_EUC_FUNCTION_CALL_NAME)


def reply(request_id: str, name: str, response: dict[str, Any]) -> types.Content:
    """The user's message answering call ``request_id`` named ``name``."""
    answer = types.FunctionResponse(id=request_id, name=name, response=response)
    return types.Content(role="user", parts=[types.Part(function_response=answer)])


def approval(request: types.FunctionCall, confirmed: bool, payload: Any = None) -> types.Content:
    answer: dict[str, Any] = {"confirmed": confirmed}
    if payload is not None:
        answer["payload"] = payload
    return reply(request.id or "", request.name, answer)


def api_key_answer(request: types.FunctionCall, key: str) -> types.Content:
    """The config the request sent, with the user's API key filled in."""
    config = dict(request.args["authConfig"])
    config["exchangedAuthCredential"] = {"authType": "apiKey", "apiKey": key}
    return reply(request.id or "", request.name, config)
