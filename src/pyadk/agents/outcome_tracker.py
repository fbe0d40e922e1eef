"""OutcomeTracker: works out an agent run's outcome from the events it produced."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from pyadk.errors import AgentTimeoutError
from pyadk.events.outcome import AgentOutcome, OutcomeStatus
from pyadk.utils.fast_models import construct

if TYPE_CHECKING:
    from pyadk.events.event import Event

_FAILED_TOOL_STATUSES = frozenset({"error", "failure", "failed"})


class OutcomeTracker:
    """Watches one agent run's events.

    The run failed when one of the agent's own events reports a model error
    (``error_code``) or a tool result with ``"status": "error"``, or when a direct
    child's latest outcome is a failure. It escalated when one of its own events
    escalates.
    """

    def __init__(self, agent_name: str, child_names: Callable[[], set[str]]) -> None:
        self.agent_name = agent_name
        self._child_names = child_names
        self._children: set[str] | None = None
        self.own_failure: str | None = None
        self.child_outcomes: dict[str, AgentOutcome] = {}
        self.escalated = False
        self.saw_escalation = False

    def observe(self, event: Event) -> None:
        """Takes one event of the run into account."""
        actions = event.actions
        author = event.author
        if actions.escalate:
            self.saw_escalation = True
            if author == self.agent_name:
                self.escalated = True
        outcome = actions.agent_outcome
        if outcome is not None:
            agent = outcome.agent
            if author == agent and agent in self.child_names:
                self.child_outcomes[agent] = outcome
            return
        if author != self.agent_name or self.own_failure is not None or event.partial:
            return
        if event.error_code:
            self.own_failure = (
                f"model error {event.error_code}: {event.error_message or ''}".strip()
            )
            return
        for response in event.get_function_responses():
            result = response.response or {}
            status = result.get("status")
            if isinstance(status, str) and status.lower() in _FAILED_TOOL_STATUSES:
                detail = result.get("message") or result.get("error") or status
                self.own_failure = f"tool {response.name} failed: {detail}"
                return

    @property
    def child_names(self) -> set[str]:
        """The names of the agent's direct children (asked for on first use only)."""
        if self._children is None:
            self._children = self._child_names()
        return self._children

    def _make(
        self, status: OutcomeStatus, reason: str | None = None, error_type: str | None = None
    ) -> AgentOutcome:
        return construct(
            AgentOutcome, agent=self.agent_name, status=status, reason=reason, error_type=error_type
        )

    def result(self) -> AgentOutcome:
        """The outcome of a run that ended normally."""
        if self.own_failure is not None:
            return self._make(OutcomeStatus.FAILURE, self.own_failure)
        failed = [o for o in self.child_outcomes.values() if o.failed]
        if failed:
            reason = "; ".join(f"{o.agent} {o.describe()}" for o in failed)
            return self._make(OutcomeStatus.FAILURE, reason)
        if self.escalated:
            return self._make(OutcomeStatus.ESCALATED)
        return self._make(OutcomeStatus.SUCCESS)

    def skipped(self, reason: str) -> AgentOutcome:
        """The outcome of a run skipped before it started."""
        return self._make(OutcomeStatus.SKIPPED, reason)

    def errored(self, error: BaseException) -> AgentOutcome:
        """The outcome of a run ended by an exception (timed_out only for the agent whose
        own ``timeout`` ran out; its ancestors fail with that error)."""
        own_timeout = isinstance(error, AgentTimeoutError) and error.agent == self.agent_name
        status = OutcomeStatus.TIMED_OUT if own_timeout else OutcomeStatus.FAILURE
        reason = str(error) or type(error).__name__
        return self._make(status, reason, type(error).__name__)

    def interrupted(self) -> AgentOutcome:
        """The outcome of a run that was cancelled or closed before it ended."""
        if self.escalated:  # its own escalation ended it: the run was over
            return self._make(OutcomeStatus.ESCALATED)
        return self._make(OutcomeStatus.CANCELLED, "the run was cancelled before it ended")
