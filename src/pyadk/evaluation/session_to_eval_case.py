"""Turns a stored conversation (a :class:`Session`) into an :class:`EvalCase`: what the
agent did becomes what it is expected to do again (``add_session`` of the API server)."""

from __future__ import annotations

import copy
import time
from typing import Any

from pyadk.evaluation.eval_case import EvalCase, Invocation, SessionInput
from pyadk.evaluation.evaluation_generator import invocation_from_events
from pyadk.events.event import Event
from pyadk.sessions.session import Session

USER = "user"
_TEMP_PREFIX = "temp:"


def session_to_eval_case(session: Session, eval_id: str) -> EvalCase:
    """The eval case ``eval_id`` that replays ``session``.

    Each message of the user starts an invocation; the agents' events up to the next
    message of the user are what that invocation expects (its tool calls and results,
    its final response, the text said on the way). Events before the first message of
    the user, and events of the user that hold no message (only state, or only the
    results of long-running tools), start nothing.

    ``session_input`` carries the app, the user and the state the session started from,
    as far as the session tells it: a session keeps its current state, not the one it
    was created with, so the starting state is the current state without the keys its
    events changed (their earlier values are not recorded; keys set by the conversation
    itself are then set again by the replay). ``app:`` and ``user:`` keys are taken at
    their current value. A session whose events changed every key starts from ``{}``.
    """
    return EvalCase(
        eval_id=eval_id,
        conversation=session_invocations(session.events),
        session_input=SessionInput(
            app_name=session.app_name,
            user_id=session.user_id,
            state=starting_state(session),
        ),
        creation_timestamp=time.time(),
    )


def session_invocations(events: list[Event]) -> list[Invocation]:
    """One :class:`Invocation` per message of the user, in order."""
    invocations: list[Invocation] = []
    user_event: Event | None = None
    agent_events: list[Event] = []
    for event in events:
        if _is_user_message(event):
            if user_event is not None:
                invocations.append(_invocation(user_event, agent_events))
            user_event, agent_events = event, []
        elif user_event is not None and event.author != USER:
            agent_events.append(event)
    if user_event is not None:
        invocations.append(_invocation(user_event, agent_events))
    return invocations


def starting_state(session: Session) -> dict[str, Any]:
    """The state ``session`` started from, as far as it can be told (see
    :func:`session_to_eval_case`): the keys no event changed, with their values."""
    changed: set[str] = set()
    for event in session.events:
        changed.update(event.actions.state_delta)
    return {
        key: copy.deepcopy(value)
        for key, value in session.state.items()
        if key not in changed and not key.startswith(_TEMP_PREFIX)
    }


def _is_user_message(event: Event) -> bool:
    if event.author != USER or event.content is None:
        return False
    return any(part.function_response is None for part in event.content.parts or ())


def _invocation(user_event: Event, agent_events: list[Event]) -> Invocation:
    assert user_event.content is not None
    invocation = invocation_from_events(user_event.content, agent_events)
    if not invocation.invocation_id:
        invocation.invocation_id = user_event.invocation_id
    if not agent_events:
        invocation.creation_timestamp = user_event.timestamp
    return invocation
