"""An A2A task or message -> the pyadk event a caller records for it.

A message's parts become the event content (role ``model`` for the agent side); data
parts marked ``adk_is_long_running`` put their function call ids in
``long_running_tool_ids``. A task is read from its artifacts, else its status
message, else the last agent message of its history; a task with none of these gives
an event with no content.
"""

from __future__ import annotations

import logging
from typing import Any

from a2a.types import Message, Role, Task, TaskState

from pyadk import types
from pyadk.a2a.converters.part_converter import (
    A2A_DATA_PART_METADATA_IS_LONG_RUNNING_KEY,
    A2APartToGenAIPartConverter,
    convert_a2a_part_to_genai_part,
)
from pyadk.a2a.converters.utils import _get_adk_metadata_key, metadata_dict
from pyadk.events import Event
from pyadk.utils.ids import new_uuid4

logger = logging.getLogger(__name__)

DEFAULT_AUTHOR = "a2a agent"
_LONG_RUNNING_KEY = _get_adk_metadata_key(A2A_DATA_PART_METADATA_IS_LONG_RUNNING_KEY)
_FINISHED = (
    TaskState.TASK_STATE_COMPLETED,
    TaskState.TASK_STATE_FAILED,
    TaskState.TASK_STATE_CANCELED,
)


def _base_event(author: str | None, invocation_context: Any) -> Event:
    return Event(
        invocation_id=(
            invocation_context.invocation_id if invocation_context is not None else new_uuid4()
        ),
        author=author or DEFAULT_AUTHOR,
        branch=invocation_context.branch if invocation_context is not None else None,
    )


def convert_a2a_message_to_event(
    a2a_message: Message,
    author: str | None = None,
    invocation_context: Any = None,
    part_converter: A2APartToGenAIPartConverter = convert_a2a_part_to_genai_part,
) -> Event:
    """The pyadk event holding an A2A message's parts."""
    if a2a_message is None:
        raise ValueError("A2A message cannot be None")
    role = "user" if a2a_message.role == Role.ROLE_USER else "model"
    event = _base_event(author, invocation_context)
    parts: list[types.Part] = []
    long_running: set[str] = set()
    for a2a_part in a2a_message.parts:
        converted = part_converter(a2a_part)
        batch = converted if isinstance(converted, list) else [converted]
        batch = [part for part in batch if part is not None]
        if metadata_dict(a2a_part).get(_LONG_RUNNING_KEY) is True:
            long_running.update(
                p.function_call.id for p in batch if p.function_call and p.function_call.id
            )
        parts.extend(batch)
    event.content = types.Content(role=role, parts=parts)
    event.long_running_tool_ids = long_running or None
    return event


def _task_message(task: Task) -> Message | None:
    if task.artifacts:
        message = Message(message_id="", role=Role.ROLE_AGENT)
        for artifact in task.artifacts:
            message.parts.extend(artifact.parts)
        return message
    if task.status.HasField("message") and task.status.message.parts:
        return task.status.message
    agent_messages = [m for m in task.history if m.role == Role.ROLE_AGENT]
    return agent_messages[-1] if agent_messages else None


def convert_a2a_task_to_event(
    a2a_task: Task,
    author: str | None = None,
    invocation_context: Any = None,
    part_converter: A2APartToGenAIPartConverter = convert_a2a_part_to_genai_part,
) -> Event:
    """The pyadk event reporting an A2A task's latest output."""
    if a2a_task is None:
        raise ValueError("A2A task cannot be None")
    message = _task_message(a2a_task)
    if message is None:
        return _base_event(author, invocation_context)
    event = convert_a2a_message_to_event(message, author, invocation_context, part_converter)
    if a2a_task.status.state in _FINISHED and event.content and event.content.parts:
        event.actions.skip_summarization = True
    return event
