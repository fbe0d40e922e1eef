"""The session history a RemoteA2aAgent sends: what the remote has not seen yet.

Walking back from the newest event, collection stops at this agent's last relayed
remote response, whose ``a2a:context_id`` the new message continues. User parts are
marked ``is_user_input``; other agents' turns are retold as text ("For context:");
a function response to a call the remote did not make is retold as text as well.
"""

from __future__ import annotations

import json
from typing import Any

from a2a.types import Part as A2APart

from pyadk.a2a.agent._responses import MOCK_FUNCTION_CALL_NAMES
from pyadk.a2a.converters.part_converter import GenAIPartToA2APartConverter, text_part
from pyadk.a2a.converters.utils import metadata_dict, struct_from_dict
from pyadk.events import Event

A2A_METADATA_PREFIX = "a2a:"
_MOCKS = frozenset(MOCK_FUNCTION_CALL_NAMES)
_PAUSED_STATES = ("TASK_STATE_INPUT_REQUIRED", "TASK_STATE_AUTH_REQUIRED")


def is_remote_response(event: Event, agent_name: str) -> bool:
    """True for an event this agent relayed from its remote peer."""
    return bool(
        event.author == agent_name
        and event.custom_metadata
        and event.custom_metadata.get(A2A_METADATA_PREFIX + "response")
    )


def _json(value: Any) -> str:
    return json.dumps(value, default=str, ensure_ascii=False)


def _retold(event: Event) -> list[A2APart]:
    """Another agent's turn as plain text the remote can read."""
    author = event.author
    texts = ["For context:"]
    for part in (event.content.parts or []) if event.content else []:
        if part.thought:
            continue
        if part.text:
            texts.append(f"[{author}] said: {part.text}")
        elif part.function_call:
            call = part.function_call
            texts.append(
                f"[{author}] called tool `{call.name}` with parameters: {_json(call.args)}"
            )
        elif part.function_response:
            response = part.function_response
            texts.append(
                f"[{author}] `{response.name}` tool returned result: {_json(response.response)}"
            )
    return [text_part(text) for text in texts] if len(texts) > 1 else []


def _answer_text(response: dict[str, Any] | None) -> str:
    if isinstance(response, dict) and set(response) == {"result"}:
        return str(response["result"])
    return _json(response)


def _as_list(converted: A2APart | list[A2APart] | None) -> list[A2APart]:
    if converted is None:
        return []
    return converted if isinstance(converted, list) else [converted]


def build_message_parts(
    events: list[Event],
    agent_name: str,
    converter: GenAIPartToA2APartConverter,
    full_history_when_stateless: bool = False,
) -> tuple[list[A2APart], str | None]:
    """The parts to send and the remote context id to continue (None: a new one)."""
    pending: list[Event] = []
    context_id: str | None = None
    for event in reversed(events):
        if is_remote_response(event, agent_name):
            assert event.custom_metadata is not None
            context_id = event.custom_metadata.get(A2A_METADATA_PREFIX + "context_id")
            if not full_history_when_stateless or context_id:
                break
        pending.append(event)
    remote_calls = {
        call.id: call.name
        for event in events
        if event.author == agent_name
        for call in event.get_function_calls()
        if call.id
    }
    parts: list[A2APart] = []
    for event in reversed(pending):
        if event.content is None or not event.content.parts:
            continue
        if event.author not in ("user", agent_name):
            parts.extend(_retold(event))
            continue
        for part in event.content.parts:
            response = part.function_response
            answers_words = False
            if response is not None and response.id not in remote_calls:
                converted = [
                    text_part(f"Tool {response.name} returned: {_json(response.response)}")
                ]
            elif response is not None and remote_calls.get(response.id or "") in _MOCKS:
                # the remote asked in words: answer in words
                converted = [text_part(_answer_text(response.response))]
                answers_words = True
            else:
                converted = _as_list(converter(part))
            if event.author == "user" and (response is None or answers_words):
                for a2a_part in converted:
                    meta = metadata_dict(a2a_part)
                    meta["is_user_input"] = True
                    a2a_part.metadata.CopyFrom(struct_from_dict(meta))
            parts.extend(converted)
    return parts, context_id


def resumable_task_id(events: list[Event], agent_name: str, context_id: str | None) -> str | None:
    """The remote task to continue: the latest one in ``context_id`` left waiting for
    input or auth; None when the latest remote answer finished its task."""
    if not context_id:
        return None
    for event in reversed(events):
        metadata = event.custom_metadata or {}
        if event.author == agent_name and event.error_message and metadata:
            return None  # a failed request may have used up the pause
        if not is_remote_response(event, agent_name):
            continue
        if metadata.get(A2A_METADATA_PREFIX + "context_id") != context_id:
            return None
        response = metadata.get(A2A_METADATA_PREFIX + "response")
        status = response.get("status") if isinstance(response, dict) else None
        if not isinstance(status, dict) or status.get("state") not in _PAUSED_STATES:
            return None
        task_id = metadata.get(A2A_METADATA_PREFIX + "task_id")
        return task_id if isinstance(task_id, str) else None
    return None
