"""pyadk's spans: ``invocation``, ``invoke_agent <name>``, ``call_llm``, ``execute_tool <name>``.

The framework calls these only after :func:`~pyadk.telemetry.get_tracer` returned a
tracer, so nothing here runs (nor imports OpenTelemetry) when tracing is off.

Async generators and context: a span stays open while its stream's events are yielded,
but it is the current span only while the stream works (around each ``anext``), never
across a ``yield``. So the caller's context is never changed, and tasks that the stream
starts (parallel agents, concurrent tools) inherit the right parent.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncGenerator, Callable
from typing import TYPE_CHECKING, Any, Generic, Self, TypeVar

from pyadk.telemetry import attributes as attr

if TYPE_CHECKING:
    from opentelemetry.trace import Span, Tracer

    from pyadk.agents.base_agent import BaseAgent
    from pyadk.agents.invocation_context import InvocationContext
    from pyadk.events.event import Event
    from pyadk.models.llm_request import LlmRequest
    from pyadk.models.llm_response import LlmResponse
    from pyadk.tools.base_tool import BaseTool
    from pyadk.types import FunctionCall

logger = logging.getLogger(__name__)

_T = TypeVar("_T")


class _Recorder(Generic[_T]):
    """Starts a stream's span, watches its items and sets the span's attributes at the end."""

    def __init__(self, tracer: Tracer) -> None:
        self.tracer = tracer

    def name(self) -> str:
        """The span's name."""
        raise NotImplementedError

    def begin(self, span: Span) -> None:
        """Sets the attributes known when the span starts (only on a recording span)."""

    def start(self) -> Span:
        """Starts the span, as a child of the current span."""
        span = self.tracer.start_span(self.name())
        if span.is_recording():
            try:
                self.begin(span)
            except Exception:  # telemetry must never break a run
                logger.exception("Could not record the attributes of span %r", span)
        return span

    def see(self, item: _T) -> None:
        """Called for each item the stream yields."""

    def finish(self, span: Span) -> None:
        """Called once, before the span ends (however the stream ended)."""

    def done(self) -> bool:
        """True when what the span measures is over before the stream is (then a caller
        closing the stream does not interrupt it)."""
        return False

    def end_time(self) -> int | None:
        """When the span ends if the stream completes or is done (None: now)."""
        return None


async def _run_in_span(
    stream: AsyncGenerator[_T, None], recorder: _Recorder[_T]
) -> AsyncGenerator[_T, None]:
    """``stream`` in the recorder's span: started on the first ``anext``, current while
    the stream works, ended however the stream ends (done, error, cancelled, closed)."""
    from opentelemetry import context, trace

    span = recorder.start()
    span_context = trace.set_span_in_context(span)
    attach, detach = context.attach, context.detach
    completed = False
    try:
        while True:
            token = attach(span_context)
            try:
                item = await anext(stream)
            except StopAsyncIteration:
                completed = True
                break
            finally:
                detach(token)
            recorder.see(item)
            yield item
    except GeneratorExit:
        if not recorder.done():
            span.set_attribute(attr.INTERRUPTED, "closed")
        raise
    except asyncio.CancelledError:
        span.set_attribute(attr.INTERRUPTED, "cancelled")
        raise
    except Exception as error:
        _record_error(span, error)
        raise
    finally:
        token = attach(span_context)
        try:
            await stream.aclose()
        finally:
            detach(token)
            done = completed or recorder.done()
            _finish(span, recorder, recorder.end_time() if done else None)


def _finish(span: Span, recorder: _Recorder[Any], end_time: int | None) -> None:
    try:
        if span.is_recording():
            recorder.finish(span)
    except Exception:  # telemetry must never break a run
        logger.exception("Could not record the attributes of span %r", recorder)
    finally:
        span.end(end_time)


def _record_error(span: Span, error: BaseException) -> None:
    from opentelemetry.trace import Status, StatusCode

    span.record_exception(error)
    span.set_attribute(attr.ERROR_TYPE, type(error).__name__)
    span.set_status(Status(StatusCode.ERROR, f"{type(error).__name__}: {error}"))


def _set_error_status(span: Span, error_type: str, description: str) -> None:
    from opentelemetry.trace import Status, StatusCode

    span.set_attribute(attr.ERROR_TYPE, error_type)
    span.set_status(Status(StatusCode.ERROR, description))


# -- invocation ----------------------------------------------------------------------------
class _InvocationRecorder(_Recorder["Event"]):
    def __init__(self, tracer: Tracer, app_name: str, session_id: str, invocation_id: str) -> None:
        super().__init__(tracer)
        self.values = {
            attr.APP_NAME: app_name,
            attr.GEN_AI_CONVERSATION_ID: session_id,
            attr.ADK_SESSION_ID: session_id,
            attr.ADK_INVOCATION_ID: invocation_id,
        }
        self.events = 0

    def name(self) -> str:
        return "invocation"

    def begin(self, span: Span) -> None:
        span.set_attributes(self.values)

    def see(self, item: Event) -> None:
        self.events += 1

    def finish(self, span: Span) -> None:
        span.set_attribute(attr.INVOCATION_EVENTS, self.events)


def trace_invocation(
    events: AsyncGenerator[Event, None],
    tracer: Tracer,
    *,
    app_name: str,
    session_id: str,
    invocation_id: str,
) -> AsyncGenerator[Event, None]:
    """``events`` (one Runner turn) inside an ``invocation`` span."""
    recorder = _InvocationRecorder(tracer, app_name, session_id, invocation_id)
    return _run_in_span(events, recorder)


# -- agent ---------------------------------------------------------------------------------
class _AgentRecorder(_Recorder["Event"]):
    def __init__(self, tracer: Tracer, agent: BaseAgent, ctx: InvocationContext) -> None:
        super().__init__(tracer)
        self.agent = agent
        self.ctx = ctx
        self.before = ctx.outcome_in_this_invocation(agent.name)

    def name(self) -> str:
        return f"invoke_agent {self.agent.name}"

    def begin(self, span: Span) -> None:
        agent, ctx = self.agent, self.ctx
        values: dict[str, Any] = {
            attr.GEN_AI_OPERATION_NAME: "invoke_agent",
            attr.GEN_AI_AGENT_NAME: agent.name,
            attr.AGENT_TYPE: type(agent).__name__,
            attr.GEN_AI_CONVERSATION_ID: ctx.session.id,
            attr.ADK_INVOCATION_ID: ctx.invocation_id,
        }
        if agent.description:
            values[attr.GEN_AI_AGENT_DESCRIPTION] = agent.description
        span.set_attributes(values)

    def finish(self, span: Span) -> None:
        outcome = self.ctx.outcome_in_this_invocation(self.agent.name)
        if outcome is None or outcome is self.before:
            return
        span.set_attribute(attr.AGENT_OUTCOME, outcome.status.value)
        if outcome.reason:
            span.set_attribute(attr.AGENT_OUTCOME_REASON, outcome.reason)
        if outcome.failed:
            _set_error_status(span, outcome.error_type or outcome.status.value, outcome.describe())


def trace_agent(
    events: AsyncGenerator[Event, None],
    tracer: Tracer,
    agent: BaseAgent,
    ctx: InvocationContext,
) -> AsyncGenerator[Event, None]:
    """``events`` (one agent run) inside an ``invoke_agent <name>`` span."""
    return _run_in_span(events, _AgentRecorder(tracer, agent, ctx))


# -- model call ----------------------------------------------------------------------------
class _LlmCallRecorder(_Recorder["LlmResponse"]):
    def __init__(
        self,
        tracer: Tracer,
        ctx: InvocationContext,
        llm_request: LlmRequest,
        response_event: Event,
    ) -> None:
        super().__init__(tracer)
        self.ctx = ctx
        self.llm_request = llm_request
        self.response_event = response_event
        self.event_id: str | None = None
        self.last: LlmResponse | None = None
        self.usage: Any = None
        self.answered_at: int | None = None

    def name(self) -> str:
        return "call_llm"

    def done(self) -> bool:
        return self.last is not None and not self.last.partial

    def end_time(self) -> int | None:
        # The call is over when its last response came, not when the flow (which handles
        # that response's tool calls first) asks for the next one or closes the stream.
        return self.answered_at

    def see(self, item: LlmResponse) -> None:
        if item.content is not None or item.error_code or item.interrupted:
            self.event_id = self.response_event.id  # the id of the event built from it
        if item.usage_metadata is not None:
            self.usage = item.usage_metadata
        self.last = item
        self.answered_at = time.time_ns()

    def finish(self, span: Span) -> None:
        request = self.llm_request
        capture = attr.capture_content()
        values: dict[str, Any] = {
            attr.GEN_AI_OPERATION_NAME: "generate_content",
            attr.GEN_AI_AGENT_NAME: self.ctx.agent.name,
            attr.GEN_AI_CONVERSATION_ID: self.ctx.session.id,
            attr.ADK_SESSION_ID: self.ctx.session.id,
            attr.ADK_INVOCATION_ID: self.ctx.invocation_id,
            attr.LLM_REQUEST_CONTENTS: len(request.contents),
        }
        if request.model:
            values[attr.GEN_AI_REQUEST_MODEL] = request.model
        if self.event_id is not None:
            values[attr.ADK_EVENT_ID] = self.event_id
        config = request.config
        for name, value in (
            (attr.GEN_AI_REQUEST_TEMPERATURE, config.temperature),
            (attr.GEN_AI_REQUEST_TOP_P, config.top_p),
            (attr.GEN_AI_REQUEST_TOP_K, config.top_k),
            (attr.GEN_AI_REQUEST_MAX_TOKENS, config.max_output_tokens),
        ):
            if value is not None:
                values[name] = value
        request_json = attr.llm_request_json(request)
        values[attr.LLM_REQUEST_SIZE] = len(request_json)
        values[attr.ADK_LLM_REQUEST] = attr.truncate(request_json) if capture else attr.EMPTY_JSON
        usage = self.usage
        if usage is not None:
            if usage.prompt_token_count is not None:
                values[attr.GEN_AI_USAGE_INPUT_TOKENS] = usage.prompt_token_count
            if usage.candidates_token_count is not None:
                values[attr.GEN_AI_USAGE_OUTPUT_TOKENS] = usage.candidates_token_count
        response = self.last
        if response is not None:
            response_json = response.model_dump_json(exclude_none=True)
            values[attr.LLM_RESPONSE_SIZE] = len(response_json)
            values[attr.ADK_LLM_RESPONSE] = (
                attr.truncate(response_json) if capture else attr.EMPTY_JSON
            )
            if response.finish_reason is not None:
                values[attr.GEN_AI_RESPONSE_FINISH_REASONS] = [response.finish_reason.lower()]
            if response.model_version:
                values[attr.GEN_AI_RESPONSE_MODEL] = response.model_version
        span.set_attributes(values)
        if response is not None and response.error_code:
            if response.error_message:
                span.set_attribute(attr.LLM_ERROR_MESSAGE, response.error_message)
            _set_error_status(
                span,
                str(response.error_code),
                f"{response.error_code}: {response.error_message or ''}".rstrip(": "),
            )


def trace_llm_call(
    responses: AsyncGenerator[LlmResponse, None],
    tracer: Tracer,
    ctx: InvocationContext,
    llm_request: LlmRequest,
    response_event: Event,
) -> AsyncGenerator[LlmResponse, None]:
    """``responses`` (one model call, with its callbacks) inside a ``call_llm`` span."""
    return _run_in_span(responses, _LlmCallRecorder(tracer, ctx, llm_request, response_event))


# -- spans current inside a block -----------------------------------------------------------
class CurrentSpan:
    """A span that is current inside a ``with`` block (no ``yield`` may happen in it):
    ended on exit, an exception recorded as its error, a cancellation marked."""

    span: Span
    _token: object = None

    def _start(self, tracer: Tracer, name: str, attributes: Callable[[], dict[str, Any]]) -> None:
        self.span = span = tracer.start_span(name)
        if not span.is_recording():
            return
        try:
            span.set_attributes(attributes())
        except Exception:  # telemetry must never break a run
            logger.exception("Could not record the attributes of span %r", name)

    def __enter__(self) -> Self:
        from opentelemetry import context, trace

        self._token = context.attach(trace.set_span_in_context(self.span))
        return self

    def __exit__(self, exc_type: Any, error: BaseException | None, tb: Any) -> None:
        from opentelemetry import context

        context.detach(self._token)  # type: ignore[arg-type]
        span = self.span
        if isinstance(error, asyncio.CancelledError):
            span.set_attribute(attr.INTERRUPTED, "cancelled")
        elif isinstance(error, Exception):
            _record_error(span, error)
        span.end()


# -- tool call -----------------------------------------------------------------------------
class ToolSpan(CurrentSpan):
    """``with ToolSpan(...) as span:`` around one tool call: an ``execute_tool <name>``
    span, current inside the block (no ``yield`` may happen in it)."""

    def __init__(
        self,
        tracer: Tracer,
        ctx: InvocationContext,
        call: FunctionCall,
        tool: BaseTool | None,
        event_id: str,
    ) -> None:
        self._start(
            tracer,
            f"execute_tool {call.name or ''}",
            lambda: _tool_attributes(ctx, call, tool, event_id),
        )

    def record(self, response: dict[str, Any] | None) -> None:
        """Records the tool's response (None: a long-running tool that answers later).
        A response with an ``error`` key marks the span as failed."""
        span = self.span
        if not span.is_recording() or response is None:
            return
        try:
            capture = attr.capture_content()
            text = attr.to_json(response) if capture else attr.EMPTY_JSON
            span.set_attribute(attr.ADK_TOOL_RESPONSE, attr.truncate(text))
            if "error" in response:
                error = str(response["error"])[:500] if capture else "the tool returned an error"
                _set_error_status(span, "tool_error", error)
        except Exception:  # telemetry must never break a run
            logger.exception("Could not record the response of tool span %r", span)


def _tool_attributes(
    ctx: InvocationContext, call: FunctionCall, tool: BaseTool | None, event_id: str
) -> dict[str, Any]:
    values: dict[str, Any] = {
        attr.GEN_AI_OPERATION_NAME: "execute_tool",
        attr.GEN_AI_TOOL_NAME: call.name or "",
        attr.GEN_AI_AGENT_NAME: ctx.agent.name,
        attr.ADK_INVOCATION_ID: ctx.invocation_id,
        attr.ADK_EVENT_ID: event_id,
        attr.ADK_TOOL_CALL_ARGS: attr.truncate(attr.to_json(call.args or {}))
        if attr.capture_content()
        else attr.EMPTY_JSON,
    }
    if call.id:
        values[attr.GEN_AI_TOOL_CALL_ID] = call.id
    if tool is not None:
        values[attr.GEN_AI_TOOL_TYPE] = type(tool).__name__
        if tool.description:
            values[attr.GEN_AI_TOOL_DESCRIPTION] = tool.description
        if tool.is_long_running:
            values[attr.TOOL_LONG_RUNNING] = True
    return values


def trace_merged_tool_calls(
    tracer: Tracer, ctx: InvocationContext, response_event: Event, calls: int
) -> None:
    """The ``execute_tool (merged)`` span of a response event that answers several calls
    (as google-adk records it: the event's id and merged response, for ``/debug/trace``)."""
    span = tracer.start_span("execute_tool (merged)")
    try:
        if span.is_recording():
            content = (
                response_event.model_dump_json(exclude_none=True)
                if attr.capture_content()
                else attr.EMPTY_JSON
            )
            span.set_attributes(
                {
                    attr.GEN_AI_OPERATION_NAME: "execute_tool",
                    attr.GEN_AI_TOOL_NAME: "(merged tools)",
                    attr.GEN_AI_AGENT_NAME: ctx.agent.name,
                    attr.ADK_INVOCATION_ID: ctx.invocation_id,
                    attr.ADK_EVENT_ID: response_event.id,
                    attr.ADK_TOOL_RESPONSE: attr.truncate(content),
                    attr.TOOL_CALLS: calls,
                }
            )
    finally:
        span.end()
