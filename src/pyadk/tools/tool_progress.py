"""Tool progress: reports a running tool call sends to the client as partial events.

A tool whose ``streams_progress`` is true (``FunctionTool(func, streams_progress=True)``,
``AgentTool(agent, stream_events=True)``) may call ``tool_context.report_progress(data)``.
While a model response's calls run, :func:`pyadk.flows.functions.stream_function_calls`
holds a :class:`ProgressSink` for them; each report becomes a partial event (never
stored, never shown to a model) that ``Runner.run_async`` (and ``Runner.run_live``)
yields at once. The event's
``custom_metadata[TOOL_PROGRESS_KEY]`` holds the call's ``function_call_id``, its
``tool_name`` and either ``data`` (a report) or ``agent_event`` (an event of an
AgentTool's sub-agent, as JSON data). :meth:`ToolProgress.from_event` reads it back.
"""

from __future__ import annotations

import asyncio
import json
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pydantic_core import PydanticSerializationError

from pyadk.events.event import Event

if TYPE_CHECKING:
    from pyadk.agents.invocation_context import InvocationContext
    from pyadk.tools.tool_context import ToolContext

TOOL_PROGRESS_KEY = "tool_progress"
"""The ``custom_metadata`` key of a tool progress event."""


@dataclass(frozen=True)
class ToolProgress:
    """A tool progress event's payload: which call it is about, and what it reports."""

    function_call_id: str | None
    tool_name: str
    data: Any = None
    """What the tool reported (a string or a JSON dict); None for a sub-agent's event."""
    agent_event: Event | None = None
    """The sub-agent's own event (forwarded by ``AgentTool(stream_events=True)``)."""

    @classmethod
    def from_event(cls, event: Event) -> ToolProgress | None:
        """The progress ``event`` carries; None for any other event."""
        metadata = event.custom_metadata
        payload = metadata.get(TOOL_PROGRESS_KEY) if metadata and event.partial else None
        if not isinstance(payload, dict):
            return None
        nested = payload.get("agent_event")
        return cls(
            function_call_id=payload.get("function_call_id"),
            tool_name=str(payload.get("tool_name") or ""),
            data=payload.get("data"),
            agent_event=Event.model_validate(nested) if isinstance(nested, dict) else None,
        )


class ProgressSink:
    """Where the reports of one model response's streaming calls go: a queue the flow
    reads while the calls run (internal: made by
    :func:`pyadk.flows.functions.stream_function_calls`)."""

    __slots__ = ("author", "branch", "closed", "ctx", "loop", "names", "queue")

    def __init__(
        self, ctx: InvocationContext, names: dict[str, str], queue: asyncio.Queue[Any]
    ) -> None:
        self.ctx = ctx
        self.author = ctx.agent.name
        self.branch = ctx.branch
        self.names = names
        """Call id -> tool name, for the calls whose tool streams progress."""
        self.queue = queue
        self.loop = asyncio.get_running_loop()
        self.closed = False

    def emit(self, call_id: str, payload: dict[str, Any]) -> None:
        event = Event(
            invocation_id=self.ctx.invocation_id,
            author=self.author,
            branch=self.branch,
            partial=True,
            custom_metadata={TOOL_PROGRESS_KEY: payload},
        )
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is self.loop:
            self.queue.put_nowait(event)
            return
        try:  # a sync tool running in a worker thread
            self.loop.call_soon_threadsafe(self._put, event)
        except RuntimeError:  # the loop is closed: the run is over
            pass

    def _put(self, event: Event) -> None:
        if not self.closed:
            self.queue.put_nowait(event)


current_sink: ContextVar[ProgressSink | None] = ContextVar("pyadk_tool_progress", default=None)
"""The sink of the calls running in this context (set only while streaming calls run)."""


def _target(tool_context: ToolContext) -> tuple[ProgressSink, str, str] | None:
    """The sink, call id and tool name a report of ``tool_context`` goes to; None when
    the call does not stream (its tool does not, or it runs outside a streaming step)."""
    sink = current_sink.get()
    call_id = tool_context.function_call_id
    # A nested run (an AgentTool's sub-agent) inherits the context: its own calls have
    # another InvocationContext, and never reach the outer sink.
    if sink is None or sink.closed or call_id is None:
        return None
    if sink.ctx is not tool_context._invocation_context:
        return None
    name = sink.names.get(call_id)
    return None if name is None else (sink, call_id, name)


def report(tool_context: ToolContext, data: str | dict[str, Any]) -> bool:
    """Sends ``data`` as a progress event of ``tool_context``'s call (see
    :meth:`ToolContext.report_progress`)."""
    if not isinstance(data, str | dict):
        raise TypeError(
            f"report_progress takes a string or a JSON dict, not {type(data).__name__}."
        )
    try:  # a copy, so that later changes by the tool do not alter the event
        copied = json.loads(json.dumps(data))
    except (TypeError, ValueError) as error:
        raise TypeError(f"report_progress data must be JSON-serializable: {error}") from None
    target = _target(tool_context)
    if target is None:
        return False
    sink, call_id, name = target
    sink.emit(call_id, {"function_call_id": call_id, "tool_name": name, "data": copied})
    return True


def forward_agent_event(tool_context: ToolContext, event: Event) -> bool:
    """Sends a sub-agent's ``event`` as a progress event of ``tool_context``'s call
    (used by ``AgentTool(stream_events=True)``); False when the call does not stream."""
    target = _target(tool_context)
    if target is None:
        return False
    sink, call_id, name = target
    sink.emit(
        call_id, {"function_call_id": call_id, "tool_name": name, "agent_event": _json(event)}
    )
    return True


def _json(event: Event) -> dict[str, Any]:
    """``event`` as camelCase JSON data (what ``/run_sse`` sends for an event); a value
    JSON cannot hold becomes its ``repr``."""
    try:
        return event.model_dump(mode="json", by_alias=True, exclude_none=True)
    except PydanticSerializationError:
        data = event.model_dump(mode="python", by_alias=True, exclude_none=True)
        loaded: dict[str, Any] = json.loads(json.dumps(data, default=repr))
        return loaded
