"""What the client-request flows (tool confirmations, credential requests) share:
finding a request in the session, the answers in a user's message, and whether a call
already got its result after a request."""

from __future__ import annotations

from pyadk import types
from pyadk.events.client_requests import CHECKED_ANSWER_NAMES, CLIENT_REQUEST_NAMES
from pyadk.events.event import Event


def answers_to(content: types.Content | None, name: str) -> list[types.FunctionResponse]:
    """The function responses named ``name`` in a user's message."""
    if content is None or not content.parts:
        return []
    return [
        part.function_response
        for part in content.parts
        if part.function_response is not None and part.function_response.name == name
    ]


def has_client_answers(content: types.Content | None) -> bool:
    """Whether a user's message answers any client request (one check a part)."""
    if content is None or not content.parts:
        return False
    return any(
        part.function_response is not None and part.function_response.name in CLIENT_REQUEST_NAMES
        for part in content.parts
    )


def answers_a_request(content: types.Content | None) -> bool:
    """Whether a user's message answers a client request or a workflow's input request:
    its answers are checked before it is stored (one check a part)."""
    if content is None or not content.parts:
        return False
    return any(
        part.function_response is not None and part.function_response.name in CHECKED_ANSWER_NAMES
        for part in content.parts
    )


def find_request(
    events: list[Event], request_id: str | None, name: str
) -> tuple[int, str, types.FunctionCall] | None:
    """The latest request call ``request_id`` named ``name``: its event's index and
    author, and the call."""
    for index in range(len(events) - 1, -1, -1):
        for call in events[index].get_function_calls():
            if call.id == request_id and call.name == name:
                return index, events[index].author, call
    return None


def answered_after(events: list[Event], index: int, call_id: str) -> bool:
    """True when a result for ``call_id`` was stored after event ``index`` (the call
    already ran again)."""
    return any(
        response.id == call_id
        for event in events[index + 1 :]
        for response in event.get_function_responses()
    )


def calls_event(
    invocation_id: str, author: str, branch: str | None, calls: list[types.FunctionCall]
) -> Event:
    """An event holding ``calls``, to run them again."""
    return Event(
        invocation_id=invocation_id,
        author=author,
        branch=branch,
        content=types.Content(
            role="model", parts=[types.Part(function_call=call) for call in calls]
        ),
    )
