"""Fixtures of the telemetry tests: a real OpenTelemetry SDK provider set as the global one."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan, SpanProcessor, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter


class OpenSpans(SpanProcessor):
    """Counts spans started and not ended yet (a leak shows as a count above zero)."""

    def __init__(self) -> None:
        self.open: dict[int, str] = {}

    def on_start(self, span: Any, parent_context: Any = None) -> None:
        self.open[span.context.span_id] = span.name

    def on_end(self, span: ReadableSpan) -> None:
        self.open.pop(span.context.span_id, None)


@dataclass
class Tracing:
    """The spans pyadk recorded during a test."""

    provider: TracerProvider
    exporter: InMemorySpanExporter
    open_spans: OpenSpans

    def spans(self) -> list[ReadableSpan]:
        """Finished spans, in the order they ended."""
        return list(self.exporter.get_finished_spans())

    def names(self) -> list[str]:
        return [s.name for s in self.spans()]

    def named(self, name: str) -> list[ReadableSpan]:
        return [s for s in self.spans() if s.name == name]

    def one(self, name: str) -> ReadableSpan:
        found = self.named(name)
        assert len(found) == 1, f"{len(found)} spans named {name!r}: {self.names()}"
        return found[0]

    def parent_of(self, span: ReadableSpan) -> ReadableSpan | None:
        if span.parent is None:
            return None
        parents = [s for s in self.spans() if s.context.span_id == span.parent.span_id]
        assert len(parents) == 1, f"the parent of {span.name!r} was not recorded"
        return parents[0]

    def children(self, span: ReadableSpan) -> list[str]:
        """Names of the spans whose parent is ``span``, in start order."""
        kids = [
            s
            for s in self.spans()
            if s.parent is not None and s.parent.span_id == span.context.span_id
        ]
        return [s.name for s in sorted(kids, key=lambda s: s.start_time or 0)]


def set_global_provider(provider: Any) -> None:
    """Sets the global tracer provider even when one was set before (OpenTelemetry's API
    allows one ``set_tracer_provider`` per process; tests need one per test)."""
    trace._TRACER_PROVIDER_SET_ONCE._done = False
    trace._TRACER_PROVIDER = None
    if provider is not None:
        trace.set_tracer_provider(provider)


@pytest.fixture
def no_global_provider() -> Iterator[None]:
    """No global tracer provider during the test; the previous state comes back after."""
    saved = (trace._TRACER_PROVIDER, trace._TRACER_PROVIDER_SET_ONCE._done)
    set_global_provider(None)
    yield
    trace._TRACER_PROVIDER, trace._TRACER_PROVIDER_SET_ONCE._done = saved


@pytest.fixture
def tracing(no_global_provider: None) -> Iterator[Tracing]:
    """An SDK TracerProvider with an in-memory exporter, set as the global provider the
    way an application sets it (``trace.set_tracer_provider``)."""
    exporter = InMemorySpanExporter()
    open_spans = OpenSpans()
    provider = TracerProvider()
    provider.add_span_processor(open_spans)
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    set_global_provider(provider)
    yield Tracing(provider, exporter, open_spans)
    provider.shutdown()
