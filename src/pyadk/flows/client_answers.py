"""The check of a user's message that answers client requests, before it is stored."""

from __future__ import annotations

from pyadk import types
from pyadk.events.event import Event
from pyadk.flows import tool_auth, tool_confirmations


def check_client_answers(events: list[Event], message: types.Content | None) -> None:
    """Refuses a message whose answers do not answer requests of the session (events):
    ToolConfirmationError for approvals, ToolAuthError for credentials (both
    ValueErrors)."""
    tool_confirmations.check_answers(events, message)
    tool_auth.check_answers(events, message)
