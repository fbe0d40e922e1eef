"""RetryConfig: when and how often a failed node runs again."""

from __future__ import annotations

import random
from typing import Any

from pydantic import BaseModel, ConfigDict, field_validator

from pyadk.workflow._errors import WorkflowConfigurationError


class RetryConfig(BaseModel):
    """Retry policy of a node. Unset fields take the defaults given below.

    ``max_attempts`` counts the first run (0 or 1: no retry; default 5). The n-th
    retry waits ``initial_delay * backoff_factor ** (n - 1)`` seconds (defaults 1.0
    and 2.0), at most ``max_delay`` (default 60.0), spread by ``jitter`` (a fraction
    of the delay, default 1.0; 0 for exact delays). ``exceptions`` lists the
    exception classes (or class names) worth a retry, subclasses included; None
    retries every ``Exception``.
    """

    model_config = ConfigDict(extra="forbid")

    max_attempts: int | None = None
    initial_delay: float | None = None
    max_delay: float | None = None
    backoff_factor: float | None = None
    jitter: float | None = None
    exceptions: list[str] | None = None

    @field_validator("exceptions", mode="before")
    @classmethod
    def _names(cls, value: Any) -> list[str] | None:
        if value is None:
            return None
        names: list[str] = []
        for item in value:
            if isinstance(item, str):
                names.append(item)
            elif isinstance(item, type) and issubclass(item, BaseException):
                names.append(item.__name__)
            else:
                raise WorkflowConfigurationError(
                    "RetryConfig.exceptions takes exception classes or class names, "
                    f"got {type(item).__name__}: {item!r}"
                )
        return names

    def should_retry(self, error: BaseException, attempt: int) -> bool:
        """Whether ``error``, raised by attempt number ``attempt`` (1-based), is retried."""
        limit = 5 if self.max_attempts is None else self.max_attempts
        if attempt >= limit:
            return False
        if self.exceptions is None:
            return True
        names = {klass.__name__ for klass in type(error).__mro__ if klass is not object}
        return not names.isdisjoint(self.exceptions)

    def delay(self, attempt: int) -> float:
        """Seconds to wait after failed attempt number ``attempt`` (1-based)."""
        initial = 1.0 if self.initial_delay is None else self.initial_delay
        ceiling = 60.0 if self.max_delay is None else self.max_delay
        factor = 2.0 if self.backoff_factor is None else self.backoff_factor
        jitter = 1.0 if self.jitter is None else self.jitter
        delay = initial * factor ** max(0, attempt - 1)
        if jitter > 0:
            delay = min(delay, ceiling / (1.0 + jitter))
            delay = max(0.0, delay + random.uniform(-jitter * delay, jitter * delay))
        return min(delay, ceiling)
