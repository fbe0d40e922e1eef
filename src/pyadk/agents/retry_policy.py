"""RetryPolicy: how model and tool calls are retried."""

import asyncio
import logging
import math
import random
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from pyadk.utils.attribute_lookup import PlainAttributeLookup

T = TypeVar("T")

logger = logging.getLogger(__name__)


def _default_retryable(error: BaseException) -> bool:
    return bool(getattr(error, "retryable", False)) or isinstance(
        error, TimeoutError | ConnectionError
    )


def _retry_after_of(error: BaseException | None) -> float | None:
    """The seconds ``error`` says to wait before a retry (its ``retry_after``, as
    :class:`~pyadk.errors.ModelError` carries from a provider's ``Retry-After``), or
    None when it says nothing usable."""
    value = getattr(error, "retry_after", None)
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) and value >= 0 else None


class RetryPolicy(PlainAttributeLookup, BaseModel):
    """Retries a failing call with exponential backoff and jitter.

    ``attempts`` counts every try (1 = no retry). The n-th retry waits
    ``min(max_delay, initial_delay * multiplier**(n-1))``, varied by +-``jitter`` (a
    fraction). ``retry_on`` lists exception types to retry; by default, errors marked
    ``retryable`` (rate limits, overload), timeouts and connection errors. ``retry_if``
    decides instead, when given.

    When the error says how long the provider asked to wait (``retry_after``, from its
    ``Retry-After`` header), the retry waits at least that long. When that is more than
    ``max_retry_after`` seconds, the error is not retried at all but raised at once:
    waiting minutes inside a turn is worse than failing (``float("inf")`` always waits).
    """

    model_config = ConfigDict(arbitrary_types_allowed=True, extra="forbid", defer_build=True)

    attempts: int = Field(default=3, ge=1)
    initial_delay: float = Field(default=0.5, ge=0)
    max_delay: float = Field(default=8.0, ge=0)
    multiplier: float = Field(default=2.0, ge=1)
    jitter: float = Field(default=0.2, ge=0, le=1)
    max_retry_after: float = Field(default=60.0, ge=0)
    retry_on: tuple[type[BaseException], ...] | None = None
    retry_if: Callable[[BaseException], bool] | None = None

    def should_retry(self, error: BaseException) -> bool:
        """True when ``error`` is one this policy retries, and it does not ask to wait
        longer than ``max_retry_after``."""
        if self.retry_if is not None:
            retry = bool(self.retry_if(error))
        elif self.retry_on is not None:
            retry = isinstance(error, self.retry_on)
        else:
            retry = _default_retryable(error)
        wait = _retry_after_of(error)
        if retry and wait is not None and wait > self.max_retry_after:
            logger.info(
                "Not retrying %s: the provider asked to wait %.1f s, more than "
                "max_retry_after (%.1f s)",
                type(error).__name__,
                wait,
                self.max_retry_after,
            )
            return False
        return retry

    def delay(self, retry_number: int, error: BaseException | None = None) -> float:
        """Seconds to wait before retry number ``retry_number`` (1-based): the backoff,
        or what ``error`` asked for (its ``retry_after``) when that is longer."""
        base = min(self.max_delay, self.initial_delay * self.multiplier ** (retry_number - 1))
        if self.jitter and base:
            base *= 1 + random.uniform(-self.jitter, self.jitter)
        wait = _retry_after_of(error)
        return max(0.0, base, wait or 0.0)

    async def run(self, call: Callable[[], Awaitable[T]]) -> T:
        """Awaits ``call()`` until it succeeds, a non-retryable error, or no tries left."""
        attempt = 1
        while True:
            try:
                return await call()
            except Exception as error:
                if attempt >= self.attempts or not self.should_retry(error):
                    raise
                await asyncio.sleep(self.delay(attempt, error))
                attempt += 1


async def with_timeout(call: Callable[[], Awaitable[Any]], seconds: float | None) -> Any:
    """Awaits ``call()``, raising TimeoutError after ``seconds`` (None: no limit)."""
    if seconds is None:
        return await call()
    async with asyncio.timeout(seconds):
        return await call()
