"""Typed errors that callers and retry policies can act on."""

from __future__ import annotations


class PyadkError(Exception):
    """Base of pyadk's own errors."""


class ModelError(PyadkError):
    """A model call failed. ``retryable`` says whether trying again may help;
    ``retry_after`` is how many seconds the provider asked to wait before trying again
    (its ``Retry-After`` answer), None when it did not say."""

    retryable = False

    def __init__(
        self, message: str, *, status_code: int | None = None, retry_after: float | None = None
    ) -> None:
        super().__init__(message)
        self.status_code = status_code
        self.retry_after = retry_after


class RateLimitError(ModelError):
    """The provider refused the call for now (HTTP 429): retry after a pause."""

    retryable = True


class ModelOverloadedError(ModelError):
    """The provider is overloaded or unavailable (HTTP 5xx): retry after a pause."""

    retryable = True


class BadRequestError(ModelError):
    """The provider rejected the request (HTTP 4xx other than 429): do not retry."""


class ToolTimeoutError(PyadkError, TimeoutError):
    """A tool call took longer than the agent's ``tool_timeout``."""


class ModelTimeoutError(PyadkError, TimeoutError):
    """A model call took longer than the agent's ``model_timeout``."""


class AgentTimeoutError(PyadkError, TimeoutError):
    """An agent run took longer than its ``timeout``; ``agent`` names that agent."""

    def __init__(self, message: str, *, agent: str | None = None) -> None:
        super().__init__(message)
        self.agent = agent


class ArtifactVersionConflictError(PyadkError, RuntimeError):
    """A save lost the next version number to concurrent savers too many times in a
    row; nothing was saved."""


class InvocationStop(PyadkError):
    """Ends the whole invocation: failure policies (``on_failure="continue"``, a
    parallel agent's ``collect``) never absorb it."""
