"""A pyadk event -> the A2A task status updates that report it.

An event with content becomes a ``working`` status update whose message holds the
converted parts (``input-required`` when it carries a long-running function call,
``auth-required`` for a credential request). An event with an ``error_code`` first
becomes a ``failed`` status update carrying the error message. Every update's metadata
names the app, user, session, invocation, author and event (``adk_*`` keys).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import Any, Protocol

from a2a.types import (
    Message,
    Role,
    TaskArtifactUpdateEvent,
    TaskState,
    TaskStatus,
    TaskStatusUpdateEvent,
)

from pyadk.a2a.converters.part_converter import (
    A2A_DATA_PART_METADATA_IS_LONG_RUNNING_KEY,
    A2A_DATA_PART_METADATA_TYPE_FUNCTION_CALL,
    A2A_DATA_PART_METADATA_TYPE_KEY,
    GenAIPartToA2APartConverter,
    convert_genai_part_to_a2a_part,
    data_part_dict,
)
from pyadk.a2a.converters.utils import _get_adk_metadata_key, metadata_dict, struct_from_dict
from pyadk.events import Event
from pyadk.utils.ids import new_uuid4

logger = logging.getLogger(__name__)

DEFAULT_ERROR_MESSAGE = "An error occurred during processing"
REQUEST_EUC_FUNCTION_CALL_NAME = "adk_request_credential"

A2AEvent = TaskStatusUpdateEvent | TaskArtifactUpdateEvent

_TYPE_KEY = _get_adk_metadata_key(A2A_DATA_PART_METADATA_TYPE_KEY)
_LONG_RUNNING_KEY = _get_adk_metadata_key(A2A_DATA_PART_METADATA_IS_LONG_RUNNING_KEY)


class _SessionRef(Protocol):
    id: str


class RunContext(Protocol):
    """What the converter reads from the invocation: an InvocationContext fits."""

    app_name: str
    user_id: str

    @property
    def session(self) -> _SessionRef: ...


AdkEventToA2AEventsConverter = Callable[
    [Event, RunContext, "str | None", "str | None", GenAIPartToA2APartConverter],
    list[A2AEvent],
]


def _metadata_value(value: Any) -> Any:
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json", exclude_none=True, by_alias=True)
    if isinstance(value, dict | list):
        return json.dumps(value, default=str)
    return str(value)


def _context_metadata(event: Event, ctx: RunContext) -> dict[str, Any]:
    key = _get_adk_metadata_key
    metadata: dict[str, Any] = {
        key("app_name"): ctx.app_name,
        key("user_id"): ctx.user_id,
        key("session_id"): ctx.session.id,
        key("invocation_id"): event.invocation_id,
        key("author"): event.author,
        key("event_id"): event.id,
    }
    optional = {
        "branch": event.branch,
        "custom_metadata": event.custom_metadata or None,
        "usage_metadata": event.usage_metadata,
        "error_code": event.error_code,
        "actions": event.actions,
    }
    for name, value in optional.items():
        if value is not None:
            metadata[key(name)] = _metadata_value(value)
    return metadata


def status_update(
    task_id: str | None,
    context_id: str | None,
    state: int,
    message: Message | None = None,
    metadata: dict[str, Any] | None = None,
) -> TaskStatusUpdateEvent:
    """A status update in ``state`` (timestamped now), with an optional message."""
    status = TaskStatus(state=state)  # type: ignore[arg-type]
    status.timestamp.GetCurrentTime()
    if message is not None:
        status.message.CopyFrom(message)
    update = TaskStatusUpdateEvent(task_id=task_id or "", context_id=context_id or "")
    update.status.CopyFrom(status)
    if metadata:
        update.metadata.CopyFrom(struct_from_dict(metadata))
    return update


def _is_long_running_call(meta: dict[str, Any]) -> bool:
    return (
        meta.get(_TYPE_KEY) == A2A_DATA_PART_METADATA_TYPE_FUNCTION_CALL
        and meta.get(_LONG_RUNNING_KEY) is True
    )


def convert_event_to_a2a_message(
    event: Event,
    invocation_context: RunContext | None = None,
    role: int = Role.ROLE_AGENT,
    part_converter: GenAIPartToA2APartConverter = convert_genai_part_to_a2a_part,
) -> Message | None:
    """The A2A message holding ``event``'s parts, or None when it has no content."""
    if event.content is None or not event.content.parts:
        return None
    long_running = event.long_running_tool_ids or set()
    parts = []
    for part in event.content.parts:
        converted = part_converter(part)
        for a2a_part in converted if isinstance(converted, list) else [converted]:
            if a2a_part is None:
                continue
            meta = metadata_dict(a2a_part)
            if (
                long_running
                and meta.get(_TYPE_KEY) == A2A_DATA_PART_METADATA_TYPE_FUNCTION_CALL
                and data_part_dict(a2a_part).get("id") in long_running
            ):
                meta[_LONG_RUNNING_KEY] = True
                a2a_part.metadata.CopyFrom(struct_from_dict(meta))
            parts.append(a2a_part)
    if not parts:
        return None
    return Message(message_id=new_uuid4(), role=role, parts=parts)  # type: ignore[arg-type]


def _error_update(
    event: Event, ctx: RunContext, task_id: str | None, context_id: str | None
) -> TaskStatusUpdateEvent:
    code = str(event.error_code)
    message = Message(message_id=new_uuid4(), role=Role.ROLE_AGENT)
    message.parts.add(text=event.error_message or DEFAULT_ERROR_MESSAGE)
    message.metadata.CopyFrom(struct_from_dict({_get_adk_metadata_key("error_code"): code}))
    metadata = _context_metadata(event, ctx)
    return status_update(task_id, context_id, TaskState.TASK_STATE_FAILED, message, metadata)


def _working_update(
    message: Message,
    event: Event,
    ctx: RunContext,
    task_id: str | None,
    context_id: str | None,
) -> TaskStatusUpdateEvent:
    state = TaskState.TASK_STATE_WORKING
    paused = [
        part
        for part in message.parts
        if part.WhichOneof("content") == "data" and _is_long_running_call(metadata_dict(part))
    ]
    if any(data_part_dict(p).get("name") == REQUEST_EUC_FUNCTION_CALL_NAME for p in paused):
        state = TaskState.TASK_STATE_AUTH_REQUIRED
    elif paused:
        state = TaskState.TASK_STATE_INPUT_REQUIRED
    return status_update(task_id, context_id, state, message, _context_metadata(event, ctx))


def convert_event_to_a2a_events(
    event: Event,
    invocation_context: RunContext,
    task_id: str | None = None,
    context_id: str | None = None,
    part_converter: GenAIPartToA2APartConverter = convert_genai_part_to_a2a_part,
) -> list[A2AEvent]:
    """The A2A status updates reporting one pyadk event (possibly none)."""
    if event is None:
        raise ValueError("Event cannot be None")
    if invocation_context is None:
        raise ValueError("Invocation context cannot be None")
    updates: list[A2AEvent] = []
    if event.error_code:
        updates.append(_error_update(event, invocation_context, task_id, context_id))
    role = Role.ROLE_USER if event.author == "user" else Role.ROLE_AGENT
    message = convert_event_to_a2a_message(event, invocation_context, role, part_converter)
    if message is not None:
        updates.append(_working_update(message, event, invocation_context, task_id, context_id))
    return updates
