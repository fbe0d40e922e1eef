"""Routes: ``GET /debug/trace/{event_id}`` and ``GET /debug/trace/session/{session_id}``.

google-adk's debug-trace routes, over the spans of :mod:`pyadk.telemetry`. The spans are
kept in memory by a :class:`SpanStore` that :func:`install_span_store` adds to the
global OpenTelemetry tracer provider: the server does so only when tracing is requested
(``create_app(trace=True)``, ``pyadk web --trace``), which needs ``opentelemetry-sdk``.
Without it the routes answer as google-adk's do when nothing was traced (404 and ``[]``).
"""

from __future__ import annotations

import threading
from collections import OrderedDict, deque
from collections.abc import Sequence
from typing import Any

from fastapi import APIRouter, HTTPException, Request

from pyadk.server.security import require_any_user
from pyadk.telemetry import attributes as attr
from pyadk.telemetry import get_tracer_provider

DEFAULT_MAX_SPANS = 20_000
"""Spans a store keeps (the oldest go first)."""

_DETAILED_SPANS = ("call_llm", "send_data")
"""Spans (besides ``execute_tool ...``) that ``/debug/trace/{event_id}`` answers with."""


class SpanStore:
    """Finished spans in memory, indexed by event and by session, for the debug routes.

    ``add`` takes OpenTelemetry SDK ``ReadableSpan`` objects (it is fed by the span
    processor that :func:`install_span_store` installs). Bounded: past ``max_spans``
    spans, the oldest spans and event entries are dropped.
    """

    def __init__(self, max_spans: int = DEFAULT_MAX_SPANS) -> None:
        if max_spans <= 0:
            raise ValueError("max_spans must be positive.")
        self.max_spans = max_spans
        self._lock = threading.Lock()
        self._spans: deque[Any] = deque(maxlen=max_spans)
        self._by_event: OrderedDict[str, dict[str, Any]] = OrderedDict()
        self._traces_by_session: OrderedDict[str, list[int]] = OrderedDict()

    def add(self, spans: Sequence[Any]) -> None:
        """Stores finished spans."""
        with self._lock:
            for span in spans:
                self._add(span)

    def _add(self, span: Any) -> None:
        self._spans.append(span)
        attributes = span.attributes or {}
        trace_id = span.context.trace_id
        session_id = attributes.get(attr.ADK_SESSION_ID)
        if isinstance(session_id, str):
            traces = self._traces_by_session.setdefault(session_id, [])
            if trace_id not in traces:
                traces.append(trace_id)
            self._traces_by_session.move_to_end(session_id)
            _bound(self._traces_by_session, self.max_spans)
        event_id = attributes.get(attr.ADK_EVENT_ID)
        if isinstance(event_id, str) and (
            span.name in _DETAILED_SPANS or span.name.startswith("execute_tool")
        ):
            entry = dict(attributes)
            entry["trace_id"] = trace_id
            entry["span_id"] = span.context.span_id
            self._by_event[event_id] = entry
            self._by_event.move_to_end(event_id)
            _bound(self._by_event, self.max_spans)

    def event_trace(self, event_id: str) -> dict[str, Any] | None:
        """The attributes (plus ``trace_id``, ``span_id``) of the model or tool call span
        that produced event ``event_id``; None when no such span was stored."""
        with self._lock:
            entry = self._by_event.get(event_id)
            return None if entry is None else dict(entry)

    def session_spans(self, session_id: str) -> list[dict[str, Any]]:
        """Every stored span of the traces (turns) of ``session_id``, as google-adk's
        ``/debug/trace/session`` lists them, in the order they ended."""
        with self._lock:
            traces = set(self._traces_by_session.get(session_id, ()))
            spans = [s for s in self._spans if s.context.trace_id in traces]
        return [_span_json(span) for span in spans]

    def clear(self) -> None:
        """Forgets every stored span."""
        with self._lock:
            self._spans.clear()
            self._by_event.clear()
            self._traces_by_session.clear()


def _bound(index: OrderedDict[str, Any], size: int) -> None:
    while len(index) > size:
        index.popitem(last=False)


def _span_json(span: Any) -> dict[str, Any]:
    parent = span.parent
    return {
        "name": span.name,
        "span_id": span.context.span_id,
        "trace_id": span.context.trace_id,
        "start_time": span.start_time,
        "end_time": span.end_time,
        "attributes": dict(span.attributes or {}),
        "parent_span_id": parent.span_id if parent is not None else None,
    }


_stores: dict[int, tuple[Any, SpanStore]] = {}
_stores_lock = threading.Lock()


def install_span_store(max_spans: int = DEFAULT_MAX_SPANS) -> SpanStore:
    """A SpanStore fed with every span of the tracer provider pyadk uses
    (:func:`pyadk.telemetry.get_tracer_provider`).

    When no tracer provider is set yet, an OpenTelemetry SDK ``TracerProvider`` is
    created and set as the global one (so pyadk's spans are recorded); a provider that
    the application set is kept and gets one more span processor. Called again for the
    same provider, returns the same store. Raises RuntimeError when opentelemetry-sdk is
    missing or the provider takes no span processors.
    """
    try:
        from opentelemetry import trace
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import (
            SimpleSpanProcessor,
            SpanExporter,
            SpanExportResult,
        )
    except ImportError as error:
        raise RuntimeError(
            f"Tracing needs the OpenTelemetry SDK ({error}): pip install opentelemetry-sdk"
        ) from error

    class _StoreExporter(SpanExporter):
        def __init__(self, store: SpanStore) -> None:
            self.store = store

        def export(self, spans: Sequence[Any]) -> SpanExportResult:
            self.store.add(spans)
            return SpanExportResult.SUCCESS

    with _stores_lock:
        provider: Any = get_tracer_provider()
        if not hasattr(provider, "add_span_processor") and isinstance(
            provider, trace.ProxyTracerProvider
        ):  # no provider set yet
            trace.set_tracer_provider(TracerProvider())
            provider = get_tracer_provider()
        if not hasattr(provider, "add_span_processor"):
            raise RuntimeError(
                f"Tracing is requested, but the tracer provider pyadk uses "
                f"({type(provider).__name__}) takes no span processors."
            )
        known = _stores.get(id(provider))
        if known is not None and known[0] is provider:
            return known[1]
        store = SpanStore(max_spans)
        provider.add_span_processor(SimpleSpanProcessor(_StoreExporter(store)))
        _stores[id(provider)] = (provider, store)
        return store


def make_router(store: SpanStore | None) -> APIRouter:
    """The debug-trace routes over ``store`` (None: tracing is off, nothing is found)."""
    router = APIRouter()

    @router.get("/debug/trace/{event_id}")
    async def event_trace(event_id: str, request: Request) -> dict[str, Any]:
        """The attributes of the model or tool call span that produced the event."""
        require_any_user(request, "the debug trace routes")  # every user's prompts
        entry = store.event_trace(event_id) if store is not None else None
        if entry is None:
            raise HTTPException(status_code=404, detail="Trace not found")
        return entry

    @router.get("/debug/trace/session/{session_id}")
    async def session_trace(session_id: str, request: Request) -> list[dict[str, Any]]:
        """The spans of the session's turns: name, ids, times (ns) and attributes."""
        require_any_user(request, "the debug trace routes")  # every user's prompts
        return store.session_spans(session_id) if store is not None else []

    return router
