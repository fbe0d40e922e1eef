"""Provider failures as pyadk's typed errors, and import errors that name the extra."""

from __future__ import annotations

import math
import time
from datetime import UTC
from email.utils import parsedate_to_datetime
from typing import Any

from pyadk.errors import BadRequestError, ModelError, ModelOverloadedError, RateLimitError

_RATE_LIMIT_TYPES = {"rate_limit_error", "rate_limit_exceeded", "resource_exhausted"}
_OVERLOADED_TYPES = {"overloaded_error", "api_error", "server_error", "unavailable", "internal"}


def error_for_status(
    status: int | None,
    message: str,
    *,
    error_type: str | None = None,
    retry_after: float | None = None,
) -> ModelError:
    """The typed error for an HTTP status (or a provider error type when there is none).

    429 -> RateLimitError; 5xx (and 529 "overloaded") -> ModelOverloadedError; other
    4xx -> BadRequestError; each carries ``status_code`` and ``retry_after`` (the
    seconds the provider asked to wait, see :func:`retry_after_seconds`).
    """
    kind = (error_type or "").lower()
    cls: type[ModelError] = ModelError
    if status == 429 or (status is None and kind in _RATE_LIMIT_TYPES):
        cls = RateLimitError
    elif (status is not None and status >= 500) or (status is None and kind in _OVERLOADED_TYPES):
        cls = ModelOverloadedError
    elif status is not None and 400 <= status < 500:
        cls = BadRequestError
    return cls(message, status_code=status, retry_after=retry_after)


def retry_after_seconds(headers: Any, *, now: float | None = None) -> float | None:
    """The seconds an HTTP response's headers ask a client to wait before retrying.

    ``retry-after-ms`` (milliseconds, read by the OpenAI and Anthropic SDKs) comes first, then
    ``retry-after``: seconds (a decimal too) or an HTTP date, which gives the time left
    until then (0 once it has passed; ``now`` is the current epoch time, for tests).
    Missing, malformed, negative and non-finite values are ignored: None when nothing
    usable is left. ``headers`` is any mapping of names to values, matched without
    regard to case (httpx, aiohttp and requests headers, a dict), or None.
    """
    values = _header_values(headers)
    millis = _non_negative(values.get("retry-after-ms"))
    if millis is not None:
        return millis / 1000
    raw = values.get("retry-after")
    seconds = _non_negative(raw)
    if seconds is not None or raw is None:
        return seconds
    try:
        when = parsedate_to_datetime(raw)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if when.tzinfo is None:  # "-0000": a date in UTC without a known zone
        when = when.replace(tzinfo=UTC)
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


def response_headers(exc: BaseException) -> Any:
    """The headers of the HTTP response an SDK exception carries (``exc.response``,
    or the response an SDK wrapper holds as ``_response``), or None."""
    response = getattr(exc, "response", None)
    for candidate in (response, getattr(response, "_response", None)):
        headers = getattr(candidate, "headers", None)
        if headers is not None:
            return headers
    return None


def _header_values(headers: Any) -> dict[str, str]:
    items = getattr(headers, "items", None)
    if not callable(items):
        return {}
    return {str(name).lower(): str(value) for name, value in items()}


def _non_negative(value: str | None) -> float | None:
    if value is None:
        return None
    try:
        number = float(value)
    except ValueError:
        return None
    return number if math.isfinite(number) and number >= 0 else None


def unavailable(provider: str, model: str, exc: BaseException) -> ModelOverloadedError:
    """A connection failure or client-side timeout: the service could not be reached."""
    return ModelOverloadedError(
        f"{provider} model {model!r} could not be reached: {type(exc).__name__}: {exc}"
    )


def missing_sdk(adapter: str, package: str, extra: str) -> ImportError:
    """The error raised when an adapter's SDK is not installed."""
    return ImportError(
        f'{adapter} needs the {package!r} package. Install it with: pip install "pyadk[{extra}]"'
    )


_TRANSPORT_MODULES = ("httpx", "httpx2", "aiohttp", "httpcore")


def is_transport_error(exc: BaseException) -> bool:
    """True for a connection failure or timeout of an HTTP library (no HTTP status)."""
    if isinstance(exc, OSError | TimeoutError):
        return True
    root = type(exc).__module__.split(".")[0]
    return root in _TRANSPORT_MODULES and not hasattr(exc, "response")
