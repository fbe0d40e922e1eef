"""The remote's stream -> the events a RemoteA2aAgent yields.

:class:`TaskTracker` folds the stream's task, status and artifact updates into the
task as it stands (what ``a2a:response`` records). :func:`event_for` maps one stream
item to an event: the opening task and ``working`` status messages become thought
parts (progress), an artifact update the answer (``partial`` until its last chunk), a
pause or end status an event of its own (content when it has a message), a plain
message (a task-less remote) its content. A ``failed`` task also sets
``error_code``/``error_message``. A remote asking for input in words gets its last
text turned into a long-running ``mock_function_call_for_required_user_input`` call.
"""

from __future__ import annotations

import uuid
from typing import Any

from a2a.types import Message, Role, StreamResponse, Task, TaskState

from pyadk import types
from pyadk.a2a.converters._to_adk import (
    convert_a2a_message_to_event,
    convert_a2a_task_to_event,
)
from pyadk.a2a.converters.part_converter import A2APartToGenAIPartConverter
from pyadk.events import Event

A2A_TASK_FAILED = "A2A_TASK_FAILED"
MOCK_FUNCTION_CALL_FOR_REQUIRED_USER_INPUT = "mock_function_call_for_required_user_input"
MOCK_FUNCTION_CALL_FOR_REQUIRED_USER_AUTH = "mock_function_call_for_required_user_auth"
MOCK_FUNCTION_CALL_NAMES = (
    MOCK_FUNCTION_CALL_FOR_REQUIRED_USER_INPUT,
    MOCK_FUNCTION_CALL_FOR_REQUIRED_USER_AUTH,
)
_PAUSES: dict[int, tuple[str, str]] = {
    TaskState.TASK_STATE_INPUT_REQUIRED: (
        MOCK_FUNCTION_CALL_FOR_REQUIRED_USER_INPUT,
        "input_required",
    ),
    TaskState.TASK_STATE_AUTH_REQUIRED: (
        MOCK_FUNCTION_CALL_FOR_REQUIRED_USER_AUTH,
        "auth_required",
    ),
}

PROGRESS_STATES = (TaskState.TASK_STATE_SUBMITTED, TaskState.TASK_STATE_WORKING)
UNFINISHED_STATES = (TaskState.TASK_STATE_UNSPECIFIED, *PROGRESS_STATES)
_BOUNDARY_STATES = (
    TaskState.TASK_STATE_COMPLETED,
    TaskState.TASK_STATE_FAILED,
    TaskState.TASK_STATE_CANCELED,
    TaskState.TASK_STATE_REJECTED,
    TaskState.TASK_STATE_INPUT_REQUIRED,
    TaskState.TASK_STATE_AUTH_REQUIRED,
)


class TaskTracker:
    """The remote task as the stream has built it so far."""

    def __init__(self) -> None:
        self.task: Task | None = None

    def _current(self, task_id: str, context_id: str) -> Task:
        if self.task is None:
            self.task = Task(id=task_id, context_id=context_id)
        return self.task

    def apply(self, item: StreamResponse) -> None:
        """Folds one stream item in (a plain message leaves the task alone)."""
        kind = item.WhichOneof("payload")
        if kind == "task":
            fresh = Task()
            fresh.CopyFrom(item.task)
            if self.task is not None:
                known = {a.artifact_id for a in fresh.artifacts}
                fresh.artifacts.extend(a for a in self.task.artifacts if a.artifact_id not in known)
            self.task = fresh
        elif kind == "status_update":
            update = item.status_update
            task = self._current(update.task_id, update.context_id)
            if update.status.HasField("message"):
                task.history.append(update.status.message)
            task.status.CopyFrom(update.status)
            if update.HasField("metadata"):
                task.metadata.MergeFrom(update.metadata)
        elif kind == "artifact_update":
            update_a = item.artifact_update
            task = self._current(update_a.task_id, update_a.context_id)
            for artifact in task.artifacts:
                if artifact.artifact_id == update_a.artifact.artifact_id:
                    if update_a.append:
                        artifact.parts.extend(update_a.artifact.parts)
                    else:
                        artifact.CopyFrom(update_a.artifact)
                    break
            else:
                task.artifacts.append(update_a.artifact)


def _mark_thoughts(event: Event) -> None:
    for part in (event.content.parts or []) if event.content else []:
        part.thought = True


def _pause_as_call(event: Event, state: int) -> None:
    """A remote that asks for input in words (not through a long-running tool): its
    last text becomes a long-running call the caller answers like any other."""
    pause = _PAUSES.get(state)
    if pause is None or event.long_running_tool_ids or event.content is None:
        return
    parts = event.content.parts or []
    for index in range(len(parts) - 1, -1, -1):
        if parts[index].text:
            name, key = pause
            call_id = str(uuid.uuid4())
            call = types.FunctionCall(id=call_id, name=name, args={key: parts[index].text})
            parts[index] = types.Part(function_call=call)
            event.long_running_tool_ids = {call_id}
            return


def _failure(event: Event) -> None:
    parts = (event.content.parts or []) if event.content else []
    texts = [p.text for p in parts if p.text]
    event.error_code = A2A_TASK_FAILED
    event.error_message = "Remote A2A task failed: " + ("\n".join(texts) or "unknown error")


def event_for(
    item: StreamResponse,
    task: Task | None,
    author: str,
    ctx: Any,
    converter: A2APartToGenAIPartConverter,
) -> Event | None:
    """The event for one stream item, or None when it brings nothing to record."""
    kind = item.WhichOneof("payload")
    event: Event | None = None
    state = task.status.state if task is not None else None
    if kind == "message":
        return convert_a2a_message_to_event(item.message, author, ctx, converter)
    if kind == "task":
        event = convert_a2a_task_to_event(item.task, author, ctx, converter)
        if state in PROGRESS_STATES:
            _mark_thoughts(event)
        _pause_as_call(event, item.task.status.state)
    elif kind == "status_update":
        status = item.status_update.status
        if status.HasField("message") and status.message.parts:
            event = convert_a2a_message_to_event(status.message, author, ctx, converter)
            if status.state in PROGRESS_STATES:
                _mark_thoughts(event)
            _pause_as_call(event, status.state)
        elif status.state in _BOUNDARY_STATES:
            event = Event(author=author, invocation_id=ctx.invocation_id, branch=ctx.branch)
    elif kind == "artifact_update":
        update = item.artifact_update
        if not update.artifact.parts:
            return None
        message = Message(message_id="", role=Role.ROLE_AGENT)
        message.parts.extend(update.artifact.parts)
        event = convert_a2a_message_to_event(message, author, ctx, converter)
        event.partial = not update.last_chunk
        if update.artifact.artifact_id:
            # every chunk of one artifact shares an event id, as streamed chunks do
            key = f"{ctx.invocation_id}:{update.artifact.artifact_id}"
            event.id = str(uuid.uuid5(uuid.NAMESPACE_URL, key))
    if event is None:
        return None
    if task is not None and state == TaskState.TASK_STATE_FAILED and kind != "artifact_update":
        _failure(event)
    if event.content is not None and event.content.parts:
        answer = [p for p in event.content.parts if not p.thought]
        if answer:
            event.content.parts = answer
    return event
