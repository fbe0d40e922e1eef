"""Provider failures as pyadk's typed errors, and import errors that name the extra."""

from __future__ import annotations

from pyadk.errors import BadRequestError, ModelError, ModelOverloadedError, RateLimitError

_RATE_LIMIT_TYPES = {"rate_limit_error", "rate_limit_exceeded", "resource_exhausted"}
_OVERLOADED_TYPES = {"overloaded_error", "api_error", "server_error", "unavailable", "internal"}


def error_for_status(
    status: int | None, message: str, *, error_type: str | None = None
) -> ModelError:
    """The typed error for an HTTP status (or a provider error type when there is none).

    429 -> RateLimitError; 5xx (and 529 "overloaded") -> ModelOverloadedError; other
    4xx -> BadRequestError; each carries ``status_code``.
    """
    kind = (error_type or "").lower()
    if status == 429 or (status is None and kind in _RATE_LIMIT_TYPES):
        return RateLimitError(message, status_code=status)
    if (status is not None and status >= 500) or (status is None and kind in _OVERLOADED_TYPES):
        return ModelOverloadedError(message, status_code=status)
    if status is not None and 400 <= status < 500:
        return BadRequestError(message, status_code=status)
    return ModelError(message, status_code=status)


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
