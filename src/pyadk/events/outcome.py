"""Agent outcomes: how each agent run ended, recorded as data."""

import enum
from typing import Any

from pyadk.types import _Base

OUTCOME_STATE_PREFIX = "outcome:"
"""State key prefix of recorded outcomes: ``state["outcome:<agent name>"]``."""


class OutcomeStatus(enum.StrEnum):
    """How an agent run ended."""

    SUCCESS = "success"
    FAILURE = "failure"
    SKIPPED = "skipped"
    ESCALATED = "escalated"
    CANCELLED = "cancelled"
    TIMED_OUT = "timed_out"


class AgentOutcome(_Base):
    """The outcome of one agent run: its status and, when not a success, why."""

    agent: str
    status: OutcomeStatus
    reason: str | None = None
    error_type: str | None = None
    """The exception class name, when an exception ended the run."""

    @property
    def failed(self) -> bool:
        """True for failure and timed_out."""
        return self.status in (OutcomeStatus.FAILURE, OutcomeStatus.TIMED_OUT)

    def describe(self) -> str:
        """A short text: ``failure: Simulated failure``, ``success``..."""
        return f"{self.status.value}: {self.reason}" if self.reason else self.status.value

    def to_state(self) -> dict[str, Any]:
        """The value stored in state under ``outcome:<agent>``."""
        state: dict[str, Any] = {"status": str(self.status)}  # a StrEnum's str is its value
        if self.reason is not None:
            state["reason"] = self.reason
        if self.error_type is not None:
            state["error_type"] = self.error_type
        return state

    @classmethod
    def from_state(cls, agent: str, value: Any) -> "AgentOutcome | None":
        """The outcome stored in state for ``agent`` (None if absent or unreadable)."""
        if not isinstance(value, dict):
            return None
        try:
            return cls.model_validate({**value, "agent": agent})
        except ValueError:
            return None


def outcome_state_key(agent_name: str) -> str:
    """The state key of ``agent_name``'s outcome."""
    return OUTCOME_STATE_PREFIX + agent_name
