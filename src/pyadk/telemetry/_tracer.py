"""The tracing switch: pyadk's tracer when an OpenTelemetry tracer provider is set, else None.

pyadk never imports OpenTelemetry itself. When nothing imported ``opentelemetry.trace``,
no tracer provider can be set and tracing is off; when it is imported, tracing is on as
soon as a provider other than the API's no-op one is set: the global one
(``trace.set_tracer_provider``), or one given to pyadk alone (:func:`set_tracer_provider`).
:func:`get_tracer` is the one check made at each span site: a dict look-up, an attribute
read and an identity test against the provider seen last (cached with its tracer).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from pyadk.version import __version__

if TYPE_CHECKING:
    from opentelemetry.trace import Tracer, TracerProvider

INSTRUMENTATION_SCOPE = "pyadk"
"""The instrumentation scope name of pyadk's spans."""

_API_MODULE = "opentelemetry.trace"
_PROVIDER_ATTRIBUTE = "_TRACER_PROVIDER"
_UNKNOWN: Any = object()
"""The provider slot is missing (an API version without it): ask the public API."""

_modules = sys.modules
_cache: tuple[object, Tracer | None] = (None, None)
"""(the provider seen last, pyadk's tracer from it or None when that means off)."""
_own_provider: Any = None
"""The provider given to :func:`set_tracer_provider`, used instead of the global one."""


def get_tracer() -> Tracer | None:
    """pyadk's tracer, or None when tracing is off (no provider set, or a no-op one)."""
    api = _modules.get(_API_MODULE)
    if api is None:
        return None
    provider = _own_provider
    if provider is None:
        provider = getattr(api, _PROVIDER_ATTRIBUTE, _UNKNOWN)
    cache = _cache
    if provider is cache[0]:
        return cache[1]
    return _refresh(api, provider)


def is_tracing() -> bool:
    """True when pyadk records spans (an OpenTelemetry tracer provider is set)."""
    return get_tracer() is not None


def set_tracer_provider(provider: TracerProvider | None) -> None:
    """Sends pyadk's spans to ``provider`` instead of the global tracer provider (None:
    back to the global one). OpenTelemetry sets its global provider once per process;
    this one can change, e.g. one provider per test."""
    global _own_provider
    _own_provider = provider


def get_tracer_provider() -> TracerProvider:
    """The provider pyadk's spans go to: the one given to :func:`set_tracer_provider`,
    else OpenTelemetry's global one (this imports OpenTelemetry)."""
    if _own_provider is not None:
        return _own_provider
    from opentelemetry import trace

    return trace.get_tracer_provider()


@contextmanager
def use_tracer_provider(provider: TracerProvider) -> Iterator[None]:
    """``with use_tracer_provider(provider):`` pyadk's spans go to ``provider`` inside
    the block; the provider used before comes back after it."""
    previous = _own_provider
    set_tracer_provider(provider)
    try:
        yield
    finally:
        set_tracer_provider(previous)


def _refresh(api: Any, provider: Any) -> Tracer | None:
    """Resolves the tracer for a provider not seen before, and caches it."""
    global _cache
    if provider is _UNKNOWN:
        return _tracer_of(api, api.get_tracer_provider())  # not cached: re-read each time
    tracer = None if provider is None else _tracer_of(api, provider)
    _cache = (provider, tracer)
    return tracer


def _tracer_of(api: Any, provider: Any) -> Tracer | None:
    if isinstance(provider, api.NoOpTracerProvider | api.ProxyTracerProvider):
        return None
    tracer = provider.get_tracer(INSTRUMENTATION_SCOPE, __version__)
    return None if isinstance(tracer, api.NoOpTracer) else tracer
