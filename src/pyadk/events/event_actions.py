"""EventActions: the side effects an event carries (state changes, transfers, ...)."""

from typing import Any

from pydantic import Field

from pyadk.events.event_compaction import EventCompaction
from pyadk.events.outcome import AgentOutcome
from pyadk.events.tool_confirmation import ToolConfirmation
from pyadk.types import _Base


class EventActions(_Base):
    """What an event asks the framework to do besides showing its content."""

    skip_summarization: bool | None = None
    """A tool result that needs no model summary: the step ends with it."""
    state_delta: dict[str, Any] = Field(default_factory=dict)
    """State keys set by this event (``app:``/``user:``/``temp:`` prefixes scope them)."""
    artifact_delta: dict[str, int] = Field(default_factory=dict)
    """Artifacts saved by this event: file name to new version."""
    transfer_to_agent: str | None = None
    """Name of the agent that should take over."""
    escalate: bool | None = None
    """Ends the nearest enclosing LoopAgent (or signals the parent)."""
    requested_auth_configs: dict[str, Any] = Field(default_factory=dict)
    """Credentials requested by tools, keyed by function-call id."""
    requested_tool_confirmations: dict[str, ToolConfirmation] = Field(default_factory=dict)
    """Approvals asked for by tool calls, keyed by function-call id."""
    end_of_agent: bool | None = None
    """Marks the last event an agent emitted in this invocation."""
    agent_state: dict[str, Any] | None = None
    """Resumable agent state (reserved)."""
    agent_outcome: AgentOutcome | None = None
    """How the author's run ended; set on the last event of every agent run."""
    compaction: EventCompaction | None = None
    """Set on a compaction event: the summary of an earlier range of events."""

    def merge(self, other: "EventActions") -> None:
        """Folds ``other`` into these actions: deltas are unioned in order, flags OR-ed."""
        self.state_delta.update(other.state_delta)
        self.artifact_delta.update(other.artifact_delta)
        self.requested_auth_configs.update(other.requested_auth_configs)
        if other.requested_tool_confirmations:
            self.requested_tool_confirmations.update(other.requested_tool_confirmations)
        if other.transfer_to_agent:
            self.transfer_to_agent = other.transfer_to_agent
        if other.escalate:
            self.escalate = True
        if other.skip_summarization:
            self.skip_summarization = True
        if other.end_of_agent:
            self.end_of_agent = True

    def is_empty(self) -> bool:
        """True when these actions change nothing."""
        return not (
            self.state_delta
            or self.artifact_delta
            or self.requested_auth_configs
            or self.requested_tool_confirmations
            or self.transfer_to_agent
            or self.escalate
            or self.skip_summarization
            or self.compaction
        )


__all__ = ["EventActions", "EventCompaction"]
