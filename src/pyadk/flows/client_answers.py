"""The check of a user's message that answers client requests, before it is stored."""

from __future__ import annotations

from pyadk import types
from pyadk.events.client_requests import REQUEST_INPUT_FUNCTION_CALL_NAME
from pyadk.events.event import Event
from pyadk.flows import tool_auth, tool_confirmations
from pyadk.flows.client_requests import answers_to, find_request


def check_client_answers(events: list[Event], message: types.Content | None) -> None:
    """Refuses a message whose answers do not answer requests of the session (events):
    ToolConfirmationError for approvals, ToolAuthError for credentials (both
    ValueErrors), InputAnswerError for a workflow's input requests."""
    tool_confirmations.check_answers(events, message)
    tool_auth.check_answers(events, message)
    for response in answers_to(message, REQUEST_INPUT_FUNCTION_CALL_NAME):
        if find_request(events, response.id, REQUEST_INPUT_FUNCTION_CALL_NAME) is None:
            from pyadk.workflow._errors import InputAnswerError  # rare: a wrong answer

            raise InputAnswerError(f"No input request {response.id!r} in this session to answer.")
