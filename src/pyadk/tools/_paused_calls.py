"""Tool calls that pause their agent: a ``NodeTool`` whose node waits for the client.

Such a call gets no result yet (as a long-running call that returned nothing): the
events asking the client (the node's ``adk_request_input``, approval, credential or
long-running calls, made on the call's branch ``<tool>@<call id>``) follow the step's
results, and the agent waits. The client's answer to one of them makes the agent run
that call again: the node goes on from its pause, and its output is the call's result.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pyadk import types

if TYPE_CHECKING:
    from pyadk.agents.base_agent import BaseAgent
    from pyadk.agents.invocation_context import InvocationContext
    from pyadk.events.event import Event


class ToolCallPaused(BaseException):
    """Raised by a tool whose call waits for the client: the call gets no result, and
    ``requests`` (not stored yet) are given to the client after the step's results.

    A BaseException, so that tool-error callbacks and retries do not take it for a
    failure; the tool executor catches it (:func:`hold`)."""

    def __init__(self, requests: list[Event]) -> None:
        super().__init__("tool call paused")
        self.requests = requests


def hold(ctx: InvocationContext, paused: ToolCallPaused) -> None:
    """Keeps ``paused``'s requests for the flow (see :func:`take`)."""
    counters = ctx._counters
    if counters.paused_requests is None:
        counters.paused_requests = []
    counters.paused_requests.extend(paused.requests)


def take(ctx: InvocationContext) -> list[Event] | None:
    """The requests of the calls that paused since the last take (None: no call
    paused; empty: calls paused that still wait on requests asked before)."""
    counters = ctx._counters
    requests = counters.paused_requests
    if requests is not None:
        counters.paused_requests = None
    return requests


def _opened_by(branch: str | None) -> set[tuple[str, str]]:
    """The (tool name, call id) pairs of ``branch``'s ``<name>@<id>`` segments."""
    found: set[tuple[str, str]] = set()
    for segment in (branch or "").split("."):
        name, at, call_id = segment.rpartition("@")
        if at and name and call_id:
            found.add((name, call_id))
    return found


def _answered_requests(events: list[Event], answered: set[str]) -> set[tuple[str, str]]:
    """The branches' (tool, call id) pairs of the stored requests ``answered`` answers."""
    opened: set[tuple[str, str]] = set()
    for event in events:
        if event.branch and any(c.id in answered for c in event.get_function_calls()):
            opened |= _opened_by(event.branch)
    return opened


def resumed_calls(ctx: InvocationContext) -> list[types.FunctionCall] | None:
    """This agent's tool calls that paused on requests the user's message answers, less
    those that got their result since (an answer sent again); None when the message
    answers no request made inside this agent's calls."""
    message = ctx.user_content
    parts = (message.parts or []) if message is not None else []
    answered = {
        part.function_response.id
        for part in parts
        if part.function_response is not None and part.function_response.id
    }
    if not answered:
        return None
    events = ctx.session.events
    opened = _answered_requests(events, answered)
    if not opened:
        return None
    agent = ctx.agent.name
    calls = [
        call
        for event in events
        if event.author == agent
        for call in event.get_function_calls()
        if (call.name, call.id) in opened and call.id not in answered
    ]
    if not calls:
        return None
    done = {r.id for e in events for r in e.get_function_responses() if r.id}
    return [call for call in calls if call.id not in done]


def calling_agent(events: list[Event], request: Event, root: BaseAgent) -> BaseAgent | None:
    """The agent of the tool call whose branch ``request`` was made on (a NodeTool's
    node asking the client), or None."""
    opened = _opened_by(request.branch)
    if not opened:
        return None
    for event in reversed(events):
        if any((c.name, c.id) in opened for c in event.get_function_calls()):
            agent = root.find_agent(event.author)
            if agent is not None:
                return agent
    return None


def siblings_waiting(ctx: InvocationContext, call_event: Event) -> bool:
    """Whether another call of the model event that made ``call_event``'s calls still
    waits on a request of its node that the client has not answered: the agent then
    keeps waiting (a partly answered pause is not over)."""
    ids = {call.id for call in call_event.get_function_calls() if call.id}
    events = ctx.session.events
    agent = ctx.agent.name
    origin = next(
        (
            e
            for e in reversed(events)
            if e.author == agent and any(c.id in ids for c in e.get_function_calls())
        ),
        None,
    )
    if origin is None:
        return False
    answered = {r.id for e in events for r in e.get_function_responses() if r.id}
    others = {(c.name, c.id) for c in origin.get_function_calls() if c.id not in ids | answered}
    if not others:
        return False
    return any(
        event.long_running_tool_ids - answered and _opened_by(event.branch) & others
        for event in events
        if event.long_running_tool_ids and event.branch
    )
