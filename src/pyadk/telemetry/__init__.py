"""OpenTelemetry tracing of pyadk runs, as google-adk records them.

Spans (see docs/telemetry.md for their attributes):

- ``invocation``: one ``Runner.run_async`` turn;
- ``invoke_agent <name>``: one agent run, with its outcome;
- ``call_llm``: one model call (model, tokens, finish reason, request and response);
- ``execute_tool <name>``: one tool call (arguments, response, error);
- ``send_data``: the history a live run sends to a new model connection
  (:mod:`pyadk.telemetry.live_spans`).

pyadk uses the OpenTelemetry API only (the ``telemetry`` extra) and never imports it
itself: tracing is on when the application has set a tracer provider
(``opentelemetry.trace.set_tracer_provider``, or :func:`set_tracer_provider` for
pyadk's spans alone), and costs one check per span site when it has not, or when
OpenTelemetry is not installed.
"""

from pyadk.telemetry._tracer import (
    INSTRUMENTATION_SCOPE,
    get_tracer,
    get_tracer_provider,
    is_tracing,
    set_tracer_provider,
    use_tracer_provider,
)

__all__ = [
    "INSTRUMENTATION_SCOPE",
    "get_tracer",
    "get_tracer_provider",
    "is_tracing",
    "set_tracer_provider",
    "use_tracer_provider",
]
