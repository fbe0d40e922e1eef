"""Contents processor: the conversation history the model sees."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from collections.abc import Set as AbstractSet
from typing import Any

from pydantic_core import to_json

from pyadk import types
from pyadk.agents.invocation_context import InvocationContext
from pyadk.agents.llm_agent import LlmAgent
from pyadk.events.client_requests import CLIENT_REQUEST_NAMES, REQUEST_INPUT_FUNCTION_CALL_NAME
from pyadk.events.event import Event
from pyadk.flows.processors.base import SyncRequestProcessor
from pyadk.flows.processors.contents_cache import CachedHistory, HistoryCache
from pyadk.models.llm_request import LlmRequest
from pyadk.utils.fast_models import assembled, construct, copy_model, set_field


class ContentsRequestProcessor(SyncRequestProcessor):
    """Builds ``llm_request.contents`` from the session events.

    Keeps the events of the agent's branch, shows other agents' turns as context
    (``role='user'``), places tool results right after their calls, and with
    ``include_contents='none'`` keeps only the current turn.
    """

    def process_now(self, invocation_context: InvocationContext, llm_request: LlmRequest) -> None:
        agent = invocation_context.agent
        if not isinstance(agent, LlmAgent):
            return
        session = invocation_context.session
        contents = build_contents(
            session.events,
            agent_name=agent.name,
            branch=invocation_context.branch,
            current_turn_only=agent.include_contents == "none",
            cache_key=(
                session.app_name,
                session.user_id,
                session.id,
                agent.name,
                invocation_context.branch,
            ),
        )
        set_field(llm_request, "contents", contents)


request_processor = ContentsRequestProcessor()


def belongs_to_branch(invocation_branch: str | None, event_branch: str | None) -> bool:
    """True when an event of ``event_branch`` is visible from ``invocation_branch``.

    Branches match whole dot-separated segments: ``p.a`` sees ``p`` but not ``p.a1``.
    """
    if not invocation_branch or not event_branch:
        return True
    return invocation_branch == event_branch or invocation_branch.startswith(event_branch + ".")


def build_contents(
    events: Sequence[Event],
    *,
    agent_name: str,
    branch: str | None,
    current_turn_only: bool = False,
    cache_key: Hashable | None = None,
) -> list[types.Content]:
    """The model-facing history for ``agent_name`` from ``events``.

    With ``cache_key`` (a session's identity), the history built on the previous step
    is extended with the new events only, while no tool result needs moving and no new
    compaction event changes what came before. Histories
    shorter than ``MIN_CACHED_CONTENTS`` are rebuilt instead: cheap to build, and most
    sessions stay that short (one-turn sessions, fan-out branches), so caching them would
    only keep their objects alive.
    """
    if cache_key is not None and not current_turn_only:
        cached = _history_cache.get(cache_key)
        if cached is not None and cached.continues(events):
            tail = events[cached.count :]
            new = _visible(tail, branch)
            # A compaction event has no content: the usual tail, all visible, has none.
            if _responses_follow_calls(new, previous=cached.last_visible) and (
                (len(new) == len(tail) and cached.compacted_until is None)
                or cached.extends_with(tail)
            ):
                _extend(cached, events, new, agent_name)
                _history_cache.grew(cache_key, cached)
                return list(cached.contents)
    visible = _visible(events, branch)
    compacted_until: float | None = None
    # A compaction event has no content: when every event is visible, there is none.
    if len(visible) != len(events) and _has_compaction(events):
        from pyadk.flows.processors.compacted_history import apply_compaction

        compacted, compacted_until = apply_compaction(events, agent_name)
        visible = _visible(compacted, branch)
    if current_turn_only:
        visible = visible[_current_turn_start(visible, agent_name) :]
    elif (
        cache_key is not None
        and len(visible) >= MIN_CACHED_CONTENTS
        and _responses_follow_calls(visible)
    ):
        cached = CachedHistory(compacted_until=compacted_until)
        _extend(cached, events, visible, agent_name)
        _history_cache.put(cache_key, cached)
        return list(cached.contents)
    visible = _merge_latest_function_response(visible)
    visible = _place_responses_after_calls(visible)
    return [_as_model_content(event, agent_name) for event in visible]


_history_cache = HistoryCache()

MIN_CACHED_CONTENTS = 8
"""Histories with fewer contents are not cached (see :func:`build_contents`)."""


def _visible(events: Sequence[Event], branch: str | None) -> list[Event]:
    if not branch:  # every branch is visible from the root
        return [e for e in events if _has_content(e)]
    return [e for e in events if _has_content(e) and belongs_to_branch(branch, e.branch)]


def _has_compaction(events: Sequence[Event]) -> bool:
    return any(event.actions.compaction is not None for event in events if event.content is None)


def _extend(
    cached: CachedHistory, events: Sequence[Event], visible: list[Event], agent_name: str
) -> None:
    cached.contents.extend(_as_model_content(event, agent_name) for event in visible)
    cached.count = len(events)
    cached.last_event_id = events[-1].id if events else None
    if visible:
        cached.last_visible = visible[-1]


def _as_model_content(event: Event, agent_name: str) -> types.Content:
    if event.author not in ("user", agent_name):
        return _as_context(event)
    content = event.content
    assert content is not None
    # A new Content and parts list; the parts themselves are shared with the session.
    # The flow deep-copies them before user callbacks can see them.
    return _content(content.role, list(content.parts or []))


def _content(role: str | None, parts: list[types.Part]) -> types.Content:
    """``Content(role=role, parts=parts)``: both fields set, nothing to validate."""
    return assembled(types.Content, {"role": role, "parts": parts}, {"role", "parts"})


def _has_content(event: Event) -> bool:
    """False for events without model-facing content: empty ones, and the approval
    traffic of client requests (approvals and credentials asked and answered; the model
    sees the calls' results; a workflow node's request for input, whose answer is the
    next node's input)."""
    content = event.content
    if content is None or not content.role:
        return False
    parts = content.parts
    if not parts:
        return False
    first = parts[0]
    if first.text is not None:
        return not (len(parts) == 1 and first.text == "")
    call = first.function_call or first.function_response
    return call is None or (
        call.name not in CLIENT_REQUEST_NAMES and call.name != REQUEST_INPUT_FUNCTION_CALL_NAME
    )


def _current_turn_start(events: list[Event], agent_name: str) -> int:
    """Where the current turn begins: the latest event of someone else, unless it is a
    result the client posted back (a long-running call's): the turn then reaches back
    to the call it answers, as in google-adk."""
    calls = {c.id for e in events for c in e.get_function_calls() if c.id}
    unmatched: set[str] = set()
    for index in range(len(events) - 1, -1, -1):
        event = events[index]
        if unmatched:
            unmatched.difference_update(c.id for c in event.get_function_calls())
        if event.author == "user":
            posted = {r.id for r in event.get_function_responses() if r.id in calls}
            if posted:
                unmatched |= posted
                continue
        if not unmatched and event.author != agent_name:
            return index
    return 0


def _as_context(event: Event) -> types.Content:
    """Another agent's turn, rewritten as user-side context."""
    content = event.content
    assert content is not None
    author = event.author
    parts = [_text_part("For context:")]
    for part in content.parts or []:
        if part.thought:
            continue
        if part.text:
            parts.append(_text_part(f"[{author}] said: {part.text}"))
        elif part.function_call:
            call = part.function_call
            parts.append(
                _text_part(
                    f"[{author}] called tool `{call.name}` with arguments: {_to_json(call.args)}"
                )
            )
        elif part.function_response:
            response = part.function_response
            parts.append(
                _text_part(
                    f"[{author}] tool `{response.name}` returned: {_to_json(response.response)}"
                )
            )
        else:
            parts.append(copy_model(part))
    return _content("user", parts)


def _text_part(text: str) -> types.Part:
    data = _PART_DEFAULTS.copy()
    data["text"] = text
    return assembled(types.Part, data, {"text"})


_PART_DEFAULTS = construct(types.Part).__dict__
"""Every Part field's default (all None): the start of each context text part."""


def _to_json(value: Any) -> str:
    try:
        return to_json(value, fallback=str).decode()
    except (TypeError, ValueError):
        return str(value)


_NO_IDS: frozenset[str] = frozenset()


def _call_ids(event: Event) -> AbstractSet[str]:
    """The ids of the event's function calls (most events have none: one check)."""
    return _part_ids(event, "function_call")


def _response_ids(event: Event) -> AbstractSet[str]:
    """The ids of the event's function responses."""
    return _part_ids(event, "function_response")


def _part_ids(event: Event, field: str) -> AbstractSet[str]:
    """The ids of the calls or responses (``field`` of each part) the event holds."""
    content = event.content
    parts = content.parts if content is not None else None
    if not parts:
        return _NO_IDS
    ids: set[str] | None = None
    for part in parts:  # a loop, not a comprehension: most events have none
        item = getattr(part, field)
        if item is not None and (item_id := item.id):
            if ids is None:
                ids = set()
            ids.add(item_id)
    return ids or _NO_IDS


def _merge_responses(events: list[Event], ids: AbstractSet[str]) -> Event:
    """One event holding the latest response of each call id in ``ids``."""
    if len(events) == 1:
        return events[0]
    latest: dict[str, types.Part] = {}
    for event in events:
        assert event.content is not None
        for part in event.content.parts or []:
            fr = part.function_response
            if fr is not None and fr.id and fr.id in ids:
                latest[fr.id] = part
    first = events[0]
    return Event(
        invocation_id=first.invocation_id,
        author=first.author,
        branch=first.branch,
        content=types.Content(role="user", parts=list(latest.values())),
        timestamp=first.timestamp,
    )


def _merge_latest_function_response(events: list[Event]) -> list[Event]:
    """When the newest event answers an older (long-running) call, history resumes at
    that call: what came in between is dropped and the responses are merged."""
    if len(events) < 2:
        return events
    ids = _response_ids(events[-1])
    if not ids or ids & _call_ids(events[-2]):
        return events
    for index in range(len(events) - 2, -1, -1):
        call_ids = _call_ids(events[index])
        if ids & call_ids:
            answers = [e for e in events[index + 1 :] if _response_ids(e) & call_ids]
            return [*events[: index + 1], _merge_responses(answers, call_ids)]
    return events


def _place_responses_after_calls(events: list[Event]) -> list[Event]:
    """Moves tool results that arrived later right after the call that asked for them."""
    if _responses_follow_calls(events):
        return events
    all_call_ids: set[str] = set()
    for event in events:
        all_call_ids |= _call_ids(event)
    result: list[Event] = []
    for index, event in enumerate(events):
        response_ids = _response_ids(event)
        if response_ids and response_ids <= all_call_ids:
            continue
        result.append(event)
        call_ids = _call_ids(event)
        if call_ids:
            answers = [e for e in events[index + 1 :] if _response_ids(e) & call_ids]
            if answers:
                result.append(_merge_responses(answers, call_ids))
    return result


def _responses_follow_calls(events: list[Event], previous: Event | None = None) -> bool:
    """True when every tool-result event directly follows the call event it answers."""
    for event in events:
        content = event.content
        parts = content.parts if content is not None else None
        # Most events hold one part that is no tool result: nothing to look up.
        if parts and (len(parts) > 1 or parts[0].function_response is not None):
            response_ids = _response_ids(event)
            if response_ids and (previous is None or not response_ids <= _call_ids(previous)):
                return False
        previous = event
    return True
