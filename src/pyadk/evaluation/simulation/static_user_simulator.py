"""StaticUserSimulator: replays the user messages of a fixed conversation."""

from __future__ import annotations

from pyadk.evaluation.eval_case import Invocation
from pyadk.evaluation.evaluator import Evaluator
from pyadk.evaluation.simulation.user_simulator import (
    BaseUserSimulatorConfig,
    NextUserMessage,
    Status,
    UserSimulator,
)
from pyadk.events.event import Event


class StaticUserSimulator(UserSimulator):
    """Each expected invocation's user message in turn, then STOP_SIGNAL_DETECTED."""

    def __init__(self, *, static_conversation: list[Invocation]) -> None:
        super().__init__(BaseUserSimulatorConfig(), config_type=BaseUserSimulatorConfig)
        self.static_conversation = static_conversation
        self.invocation_idx = 0

    async def get_next_user_message(self, events: list[Event]) -> NextUserMessage:
        del events  # the messages are fixed
        if self.invocation_idx >= len(self.static_conversation):
            return NextUserMessage(status=Status.STOP_SIGNAL_DETECTED)
        message = self.static_conversation[self.invocation_idx].user_content
        self.invocation_idx += 1
        return NextUserMessage(status=Status.SUCCESS, user_message=message)

    def get_simulation_evaluator(self) -> Evaluator | None:
        """None: a fixed conversation needs no check."""
        return None
