"""Folds the status updates of one run into the task's final state and message."""

from __future__ import annotations

from a2a.types import Message, TaskState, TaskStatusUpdateEvent

from pyadk.a2a.converters._from_adk import A2AEvent

# Higher wins: a failure outranks a pending credential, which outranks pending input.
_RANK: dict[int, int] = {
    TaskState.TASK_STATE_WORKING: 0,
    TaskState.TASK_STATE_INPUT_REQUIRED: 1,
    TaskState.TASK_STATE_AUTH_REQUIRED: 2,
    TaskState.TASK_STATE_FAILED: 3,
}


class TaskResultAggregator:
    """Tracks the final task state (failed > auth-required > input-required > working)
    and the status message that goes with it.

    Every update it sees is rewritten to ``working``: only the closing update the
    executor sends afterwards carries the final state.
    """

    def __init__(self) -> None:
        self._task_state: int = TaskState.TASK_STATE_WORKING
        self._task_status_message: Message | None = None

    def process_event(self, event: A2AEvent) -> None:
        """Records one update (status updates only) and downgrades it to ``working``."""
        if not isinstance(event, TaskStatusUpdateEvent):
            return
        state = event.status.state
        message = event.status.message if event.status.HasField("message") else None
        rank = _RANK.get(state, 0)
        current = _RANK.get(self._task_state, 0)
        if rank >= current:  # the same rank again: the later update wins
            self._task_state = state if rank else self._task_state
            self._task_status_message = message
        event.status.state = TaskState.TASK_STATE_WORKING

    @property
    def task_state(self) -> int:
        """The task's state so far."""
        return self._task_state

    @property
    def task_status_message(self) -> Message | None:
        """The message that goes with :attr:`task_state` (the latest while working)."""
        return self._task_status_message
