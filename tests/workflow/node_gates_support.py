"""Helpers of the node-gate tests: find the client requests of a turn, answer them."""

from __future__ import annotations

from typing import Any

from pyadk import types
from pyadk.auth.auth_schemes import APIKey
from pyadk.auth.auth_tool import AuthConfig
from pyadk.events import Event
from pyadk.events.client_requests import REQUEST_EUC_FUNCTION_CALL_NAME
from pyadk.tools import ToolContext
from pyadk.workflow import REQUEST_INPUT_FUNCTION_CALL_NAME

KEY = AuthConfig(auth_scheme=APIKey(**{"in": "header", "name": "X-Api-Key"}))
"""An API key the tools of these tests ask the user for."""


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


class Upload:
    """A tool that needs the user's API key (``KEY``), then the user's approval."""

    def __init__(self) -> None:
        self.keys: list[str] = []
        self.uploaded: list[str] = []

    def upload(self, name: str, tool_context: ToolContext) -> dict[str, Any]:
        """Uploads a file."""
        credential = tool_context.get_auth_response(KEY)
        if credential is None:
            tool_context.request_credential(KEY)
            return {"pending": "credential"}
        assert credential.api_key is not None
        self.keys.append(credential.api_key)
        if tool_context.tool_confirmation is None:
            tool_context.request_confirmation(hint=f"Upload {name}?")
            return {"pending": "approval"}
        self.uploaded.append(name)
        return {"uploaded": name}
