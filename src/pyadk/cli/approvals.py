"""Approvals in `pyadk run`: a tool call's ``adk_request_confirmation`` request read
from an event, the question the user is asked, and the answer sent as the next message
(google-adk's format: a ``ToolConfirmation`` as the request's function response)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from pyadk import types
from pyadk.cli.compact_json import compact_json
from pyadk.events.client_requests import REQUEST_INPUT_FUNCTION_CALL_NAME
from pyadk.events.event import Event
from pyadk.events.tool_confirmation import confirmation_answer, confirmation_requests
from pyadk.workflow._tool_node import CONFIRMATION_PREFIX

"""Arguments and payloads longer than this are cut in the display."""

YES = frozenset({"y", "yes"})
NO = frozenset({"", "n", "no"})
"""Answers to ``Approve? [y/N]`` (an empty answer rejects)."""


@dataclass
class ApprovalRequest:
    """One ``adk_request_confirmation`` call: the tool call waiting for approval."""

    request_id: str
    call_id: str | None
    tool: str
    args: dict[str, Any]
    hint: str = ""
    payload: Any | None = None

    def describe(self) -> str:
        """The waiting call and why, e.g. ``pay({"amount": 900}): Approve or reject ...``."""
        call = f"{self.tool}({compact_json(self.args)})"
        return f"{call}: {self.hint}" if self.hint else call

    def prompt(self, position: int = 1, count: int = 1) -> str:
        """The question asked: ``Approve? [y/N] `` (naming the tool when several wait)."""
        if count <= 1:
            return "Approve? [y/N] "
        return f"Approve {self.tool} ({position} of {count})? [y/N] "

    def payload_prompt(self) -> str:
        """The question asked for the data the tool asked for with its request."""
        return f"Payload for {self.tool} as JSON (empty: keep {compact_json(self.payload)}): "

    def answer(self, confirmed: bool, payload: Any | None = None) -> types.Part:
        """The function response approving (or rejecting) this request."""
        sent = payload if payload is not None else self.payload if confirmed else None
        content = confirmation_answer(self.request_id, confirmed=confirmed, payload=sent)
        assert content.parts
        return content.parts[0]


@dataclass
class WorkflowApprovalRequest(ApprovalRequest):
    """A graph workflow's approval: an ``adk_request_input`` call (id
    ``wf_tool_confirmation:...``) answered with a ``ToolConfirmation`` dict."""

    def answer(self, confirmed: bool, payload: Any | None = None) -> types.Part:
        sent = payload if payload is not None else self.payload if confirmed else None
        confirmation: dict[str, Any] = {"confirmed": confirmed}
        if sent is not None:
            confirmation["payload"] = sent
        response = types.FunctionResponse(
            id=self.request_id,
            name=REQUEST_INPUT_FUNCTION_CALL_NAME,
            response={"result": confirmation},
        )
        return types.Part(function_response=response)


def _workflow_approval_requests(event: Event) -> list[ApprovalRequest]:
    """The approvals a graph workflow asks for in an event (its tool and function
    nodes' ``require_confirmation``)."""
    requests: list[ApprovalRequest] = []
    for call in event.get_function_calls():
        if call.name != REQUEST_INPUT_FUNCTION_CALL_NAME or not is_workflow_approval(call.id):
            continue
        args = call.args or {}
        shown = args.get("payload")
        shown = shown if isinstance(shown, dict) else {}
        name, call_args, hint = shown.get("tool_name"), shown.get("args"), args.get("message")
        requests.append(
            WorkflowApprovalRequest(
                request_id=call.id or "",
                call_id=None,
                tool=name if isinstance(name, str) and name else "a tool",
                args=dict(call_args) if isinstance(call_args, dict) else {},
                hint=hint if isinstance(hint, str) else "",
                payload=shown.get("confirmation_payload"),
            )
        )
    return requests


def is_workflow_approval(request_id: str | None) -> bool:
    """Whether an input request's id is a workflow's approval request."""
    return bool(request_id) and str(request_id).startswith(CONFIRMATION_PREFIX)


def approval_requests(event: Event) -> list[ApprovalRequest]:
    """The approval requests of an event (a turn's last event when it waits): tool
    calls' and a graph workflow's."""
    requests = _workflow_approval_requests(event)
    for call in confirmation_requests(event):
        if not call.id:
            continue
        args = call.args or {}
        original = args.get("originalFunctionCall", args.get("original_function_call"))
        original = original if isinstance(original, dict) else {}
        confirmation = args.get("toolConfirmation", args.get("tool_confirmation"))
        confirmation = confirmation if isinstance(confirmation, dict) else {}
        call_id, name, call_args = original.get("id"), original.get("name"), original.get("args")
        hint = confirmation.get("hint")
        requests.append(
            ApprovalRequest(
                request_id=call.id,
                call_id=call_id if isinstance(call_id, str) else None,
                tool=name if isinstance(name, str) and name else "a tool",
                args=dict(call_args) if isinstance(call_args, dict) else {},
                hint=hint if isinstance(hint, str) else "",
                payload=confirmation.get("payload"),
            )
        )
    return requests


def parse_approval(value: str) -> bool:
    """``y``/``yes`` approves, ``n``/``no``/empty rejects; ValueError for anything else."""
    answer = value.strip().lower()
    if answer in YES:
        return True
    if answer in NO:
        return False
    raise ValueError(f"Answer y or n, not {value.strip()!r}.")


def parse_payload(value: str) -> Any | None:
    """The payload typed as JSON (None: empty, keep the tool's); ValueError if invalid."""
    if not value.strip():
        return None
    try:
        return json.loads(value)
    except json.JSONDecodeError as error:
        raise ValueError(f"Invalid JSON: {error}") from None


def answered_text(request: ApprovalRequest, confirmed: bool) -> str:
    """How the user's answer is shown, e.g. ``Approved pay``."""
    return f"{'Approved' if confirmed else 'Rejected'} {request.tool}"
