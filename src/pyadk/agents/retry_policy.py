"""RetryPolicy: how model and tool calls are retried."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field

T = TypeVar("T")


def _default_retryable(error: BaseException) -> bool:
    return bool(getattr(error, "retryable", False)) or isinstance(
        error, TimeoutError | ConnectionError
    )


class RetryPolicy(BaseModel):
    """Retries a failing call with exponential backoff and jitter.

    ``attempts`` counts every try (1 = no retry). The n-th retry waits
    ``min(max_delay, initial_delay * multiplier**(n-1))``, varied by +-``jitter`` (a
    fraction). ``retry_on`` lists exception types to retry; by default, errors marked
    ``retryable`` (rate limits, overload), timeouts and connection errors. ``retry_if``
    decides instead, when given.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True, extra="forbid", defer_build=True)

    attempts: int = Field(default=3, ge=1)
    initial_delay: float = Field(default=0.5, ge=0)
    max_delay: float = Field(default=8.0, ge=0)
    multiplier: float = Field(default=2.0, ge=1)
    jitter: float = Field(default=0.2, ge=0, le=1)
    retry_on: tuple[type[BaseException], ...] | None = None
    retry_if: Callable[[BaseException], bool] | None = None

    def should_retry(self, error: BaseException) -> bool:
        """True when ``error`` is one this policy retries."""
        if self.retry_if is not None:
            return bool(self.retry_if(error))
        if self.retry_on is not None:
            return isinstance(error, self.retry_on)
        return _default_retryable(error)

    def delay(self, retry_number: int) -> float:
        """Seconds to wait before retry number ``retry_number`` (1-based)."""
        base = min(self.max_delay, self.initial_delay * self.multiplier ** (retry_number - 1))
        if self.jitter and base:
            base *= 1 + random.uniform(-self.jitter, self.jitter)
        return max(0.0, base)

    async def run(self, call: Callable[[], Awaitable[T]]) -> T:
        """Awaits ``call()`` until it succeeds, a non-retryable error, or no tries left."""
        attempt = 1
        while True:
            try:
                return await call()
            except Exception as error:
                if attempt >= self.attempts or not self.should_retry(error):
                    raise
                await asyncio.sleep(self.delay(attempt))
                attempt += 1


async def with_timeout(call: Callable[[], Awaitable[Any]], seconds: float | None) -> Any:
    """Awaits ``call()``, raising TimeoutError after ``seconds`` (None: no limit)."""
    if seconds is None:
        return await call()
    async with asyncio.timeout(seconds):
        return await call()
