"""What a turn in `pyadk run` can end waiting for: approvals of tool calls,
credentials tools need and input a workflow node asks for (all answered by the user as
the next turn)."""

from __future__ import annotations

from pyadk.cli.approvals import ApprovalRequest, approval_requests
from pyadk.cli.credentials import CredentialRequest, credential_requests
from pyadk.cli.input_requests import InputRequest, input_requests
from pyadk.events.event import Event

ClientRequest = ApprovalRequest | CredentialRequest | InputRequest
"""A request the user answers: an approval, a credential or a workflow's input."""


def client_requests(event: Event, tools: dict[str, str]) -> list[ClientRequest]:
    """The requests of ``event``; ``tools`` maps call ids to tool names."""
    requests: list[ClientRequest] = []
    requests += approval_requests(event)
    requests += credential_requests(event, tools)
    requests += input_requests(event)
    return requests


def waiting_requests(events: list[Event], tools: dict[str, str]) -> list[ClientRequest]:
    """The requests a session's last turn ended waiting for (none when the user spoke
    after them): those of the events of the last event's invocation, unanswered."""
    if not events or events[-1].author == "user":
        return []
    last = events[-1].invocation_id
    turn: list[Event] = []
    for event in reversed(events):
        if event.invocation_id != last or event.author == "user":
            break
        turn.append(event)
    answered = {
        response.id for event in turn for response in event.get_function_responses() if response.id
    }
    return [
        request
        for event in reversed(turn)
        for request in client_requests(event, tools)
        if request.request_id not in answered
    ]


def describe_waiting(requests: list[ClientRequest]) -> str:
    """What ``requests`` wait for, e.g. ``approval of pay, a credential for forecast``."""
    return ", ".join(_waiting_for(r) for r in requests)


def _waiting_for(request: ClientRequest) -> str:
    if isinstance(request, ApprovalRequest):
        return f"approval of {request.tool}"
    if isinstance(request, InputRequest):
        return f"input for {request.asker}"
    return f"a credential for {request.tool or 'a tool'}"
