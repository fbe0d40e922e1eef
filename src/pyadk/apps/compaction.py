"""Events compaction after a turn: which events to summarise, and when.

The runner calls :func:`run_compaction` once a turn's events are stored, only for an
App with an ``events_compaction_config``. The token-threshold trigger is checked
first; the sliding window runs when it wrote nothing. The token threshold is also
checked before each model call inside a turn (:func:`compact_over_threshold`), so a
long turn of tool calls does not outgrow it. A range never ends between a
tool call and its result (nor before an answer to an open confirmation), and a range
is only summarised when it can shrink the request by more than the previous summary's
size. A failing summariser is logged and the session is left as it was.
"""

from __future__ import annotations

import json
import logging
from typing import TYPE_CHECKING

from pyadk import types
from pyadk.apps._configs import EventsCompactionConfig
from pyadk.apps.llm_event_summarizer import LlmEventSummarizer
from pyadk.events.event import Event
from pyadk.events.event_actions import EventActions
from pyadk.events.event_compaction import EventCompaction
from pyadk.flows.processors.compacted_history import apply_compaction, kept_ranges

if TYPE_CHECKING:
    from pyadk.agents.base_agent import BaseAgent
    from pyadk.apps.app import App
    from pyadk.models.base_llm import BaseLlm
    from pyadk.sessions.base_session_service import BaseSessionService
    from pyadk.sessions.session import Session

logger = logging.getLogger(__name__)


async def run_compaction(
    app: App, session: Session, session_service: BaseSessionService
) -> Event | None:
    """Appends a compaction event to ``session`` when the app's config calls for one;
    returns it (None when nothing was summarised)."""
    config = app.events_compaction_config
    if config is None or app.root_agent is None or not session.events:
        return None
    events = list(session.events)
    to_compact = _over_threshold(config, events, app.root_agent.name)
    if not to_compact and config.compaction_interval is not None:
        to_compact = _sliding_window_range(
            events, config.compaction_interval, config.overlap_size or 0
        )
    return await _store_summary(config, app.root_agent, session, session_service, to_compact)


async def compact_over_threshold(
    app: App, session: Session, session_service: BaseSessionService
) -> Event | None:
    """:func:`run_compaction`'s token-threshold trigger alone: checked before each model
    call of a turn."""
    config = app.events_compaction_config
    if config is None or app.root_agent is None or not session.events:
        return None
    to_compact = _over_threshold(config, list(session.events), app.root_agent.name)
    return await _store_summary(config, app.root_agent, session, session_service, to_compact)


def _over_threshold(
    config: EventsCompactionConfig, events: list[Event], agent_name: str
) -> list[Event]:
    """The events to summarise when the latest prompt reached the token threshold."""
    if config.token_threshold is None or config.event_retention_size is None:
        return []
    tokens = latest_prompt_token_count(events, agent_name)
    if tokens is None or tokens < config.token_threshold:
        return []
    return _token_threshold_range(events, config.event_retention_size)


async def _store_summary(
    config: EventsCompactionConfig,
    agent: BaseAgent,
    session: Session,
    session_service: BaseSessionService,
    to_compact: list[Event],
) -> Event | None:
    """Summarises ``to_compact`` (when worth it) and appends the compaction event."""
    if not to_compact or not _worth_compacting(session.events, to_compact, agent.name):
        return None
    summary = await _summarize(config, agent, to_compact)
    if summary is None:
        return None
    if summary.actions.compaction is None:
        logger.warning(
            "Events summarizer %s returned an event without actions.compaction; ignored.",
            type(config.summarizer).__name__,
        )
        return None
    summary.content = None  # the summary lives in actions.compaction only
    await session_service.append_event(session, summary)
    return summary


async def _summarize(
    config: EventsCompactionConfig, agent: BaseAgent, events: list[Event]
) -> Event | None:
    if config.summarizer is None:
        config.summarizer = LlmEventSummarizer(llm=_model_of(agent))
    try:
        return await config.summarizer.maybe_summarize_events(events=events)
    except Exception:  # the full history still works: the turn must not fail
        logger.warning("Events compaction failed; the history stays uncompacted.", exc_info=True)
        return None


def _model_of(agent: BaseAgent) -> BaseLlm:
    from pyadk.agents.llm_agent import LlmAgent

    if not isinstance(agent, LlmAgent):
        raise ValueError(
            f"Events compaction needs a summarizer: root agent {agent.name!r} is not an "
            "LlmAgent, so give EventsCompactionConfig(summarizer=LlmEventSummarizer(llm=...))."
        )
    return agent.canonical_model


# --- token threshold -------------------------------------------------------------


def latest_prompt_token_count(events: list[Event], agent_name: str) -> int | None:
    """The prompt tokens of the latest model call since the last summary (its usage
    metadata), else an estimate of the history's size (4 characters a token)."""
    for event in reversed(events):
        if event.actions.compaction is not None:
            break  # counts before a summary describe a prompt it replaced
        usage = event.usage_metadata
        if usage is not None and usage.prompt_token_count is not None:
            return usage.prompt_token_count
    from pyadk.flows.processors.contents import build_contents

    chars = sum(_chars(c) for c in build_contents(events, agent_name=agent_name, branch=None))
    return chars // 4 if chars > 0 else None


def _chars(content: types.Content) -> int:
    total = 0
    for part in content.parts or []:
        total += len(part.text or "")
        if part.function_call is not None:
            total += len(part.function_call.name or "") + len(_json(part.function_call.args))
        if part.function_response is not None:
            response = part.function_response
            total += len(response.name or "") + len(_json(response.response))
    return total


def _json(value: object) -> str:
    if not value:
        return ""
    try:
        return json.dumps(value)
    except (TypeError, ValueError):
        return str(value)


def _token_threshold_range(events: list[Event], retention: int) -> list[Event]:
    """Every event since the last summary but the last ``retention`` (moved earlier so
    no kept tool result loses its call), led by the last summary so the new one
    supersedes it."""
    ranges = kept_ranges(events)
    latest = events[ranges[-1][0]] if ranges else None
    since = ranges[-1][2] if ranges else 0.0
    candidates = [e for e in events if e.actions.compaction is None and e.timestamp > since]
    if len(candidates) <= retention:
        return []
    split = len(candidates) if retention == 0 else _safe_split(candidates, retention)
    to_compact = self_contained_prefix(candidates[:split], events)
    if not to_compact:
        return []
    compaction = latest.actions.compaction if latest is not None else None
    if compaction is not None and compaction.start_timestamp is not None:
        seed = Event(
            author="model",
            invocation_id=Event.new_id(),
            branch=latest.branch if latest is not None else None,
            content=compaction.compacted_content,
            timestamp=compaction.start_timestamp,
        )
        return [seed, *to_compact]
    return to_compact


def _safe_split(candidates: list[Event], retention: int) -> int:
    """The latest split at or before ``len - retention`` that leaves no retained tool
    result without its call (0 when there is none)."""
    limit = len(candidates) - retention
    if limit <= 0:
        return 0
    unmatched: set[str] = set()
    for index in range(len(candidates) - 1, -1, -1):
        event = candidates[index]
        unmatched |= _response_ids(event)
        unmatched -= _call_ids(event)
        if not unmatched and index <= limit:
            return index
    return 0


# --- sliding window --------------------------------------------------------------


def _sliding_window_range(events: list[Event], interval: int, overlap: int) -> list[Event]:
    """The events of the new invocations since the last summary and of the ``overlap``
    invocations before them, once there are ``interval`` new ones."""
    last_end = 0.0
    for event in reversed(events):
        compaction = event.actions.compaction
        if compaction is not None and compaction.end_timestamp:
            last_end = compaction.end_timestamp
            break
    latest: dict[str, float] = {}  # invocation id -> its latest timestamp, in order
    for event in events:
        if event.invocation_id and event.actions.compaction is None:
            latest[event.invocation_id] = max(latest.get(event.invocation_id, 0.0), event.timestamp)
    invocations = list(latest)
    new = [inv for inv in invocations if latest[inv] > last_end]
    if len(new) < interval:
        return []
    first = invocations[max(0, invocations.index(new[0]) - overlap)]
    last = new[-1]
    start = next(i for i, e in enumerate(events) if e.invocation_id == first)
    end = max(i for i, e in enumerate(events) if e.invocation_id == last)
    window = [e for e in events[start : end + 1] if e.actions.compaction is None]
    return self_contained_prefix(window, events)


# --- tool call safety --------------------------------------------------------------


def self_contained_prefix(window: list[Event], events: list[Event]) -> list[Event]:
    """The longest prefix of ``window`` after which no tool call, confirmation or
    credential request is left open. Calls that can never be answered (not long
    running, no result anywhere in ``events``, from an older invocation) do not count
    as open, so one lost result does not block compaction for good."""
    length = _balanced_length(window, frozenset())
    if length == len(window):
        return window
    dead = _dead_call_ids(window, events)
    if dead:
        length = max(length, _balanced_length(window, dead))
    return window[:length]


def _balanced_length(window: list[Event], dead: frozenset[str]) -> int:
    open_ids: set[str] = set()
    length = 0
    for index, event in enumerate(window):
        open_ids -= _response_ids(event)
        open_ids |= _call_ids(event) - dead
        actions = event.actions
        open_ids |= set(actions.requested_tool_confirmations) - dead
        open_ids |= set(actions.requested_auth_configs) - dead
        if not open_ids:
            length = index + 1
    return length


def _dead_call_ids(window: list[Event], events: list[Event]) -> frozenset[str]:
    newest = next((e.invocation_id for e in reversed(events) if e.actions.compaction is None), None)
    answered: set[str] = set()
    long_running: set[str] = set()
    for event in events:
        answered |= _response_ids(event)
        long_running |= event.long_running_tool_ids or set()
    dead: set[str] = set()
    for event in window:
        if event.invocation_id != newest:
            dead |= _call_ids(event) - answered - long_running
    return frozenset(dead)


def _call_ids(event: Event) -> set[str]:
    return {call.id for call in event.get_function_calls() if call.id}


def _response_ids(event: Event) -> set[str]:
    return {response.id for response in event.get_function_responses() if response.id}


# --- is it worth it ----------------------------------------------------------------


def _worth_compacting(events: list[Event], to_compact: list[Event], agent_name: str) -> bool:
    """True when replacing the range with an empty summary would remove more from the
    request than the previous summary weighs (always true before any summary)."""
    ranges = kept_ranges(events)
    previous = events[ranges[-1][0]].actions.compaction if ranges else None
    previous_size = _size_of(previous.compacted_content) if previous is not None else 0
    stamps = [e.timestamp for e in to_compact]
    empty = Event(
        author="user",
        invocation_id=Event.new_id(),
        actions=EventActions(
            compaction=EventCompaction(
                start_timestamp=min(stamps),
                end_timestamp=max(stamps),
                compacted_content=types.Content(role="model", parts=[]),
            )
        ),
    )
    before = _request_size(events, agent_name)
    after = _request_size([*events, empty], agent_name)
    return before - after > previous_size


def _request_size(events: list[Event], agent_name: str) -> int:
    history, _ = apply_compaction(events, agent_name)
    return sum(_size_of(event.content) for event in history)


def _size_of(content: types.Content | None) -> int:
    if content is None:
        return 0
    return len(content.model_dump_json(exclude_none=True, fallback=str))
