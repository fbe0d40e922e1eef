"""Streaming tools in live runs: async-generator function tools that run in the
background of an agent's live run, as in google-adk.

When the model calls one, the call answers at once with a pending status and the
generator starts in a task once that answer went to the model. Each value it yields goes
to the model as a partial function response of the call (through the client's
LiveRequestQueue, in order with what the client sends); an :class:`Event` it yields goes
to the client instead (yielded and stored, authored by the agent, on branch
``<tool>@<call id>``). A tool with an ``input_stream: LiveRequestQueue`` parameter gets a
queue of its own with a copy of every request the client sends while it runs.

``stop_streaming(function_name)`` cancels the running calls of a tool; the end of the
agent's live run (the client closing the queue, a transfer, the caller leaving) cancels
the rest. A generator that raises is logged with its traceback and the model gets an
error response for the call.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import AsyncGenerator
from contextlib import aclosing
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pyadk import types
from pyadk.agents.active_streaming_tool import ActiveStreamingTool
from pyadk.agents.live_request_queue import LiveRequest, LiveRequestQueue
from pyadk.events.event import Event
from pyadk.flows.tool_result_media import function_response_of
from pyadk.tools.function_tool import FunctionTool
from pyadk.tools.stop_streaming_tool import STOP_STREAMING
from pyadk.utils.fast_models import construct

if TYPE_CHECKING:
    from pyadk.agents.invocation_context import InvocationContext
    from pyadk.models.llm_request import LlmRequest
    from pyadk.tools.tool_context import ToolContext

logger = logging.getLogger(__name__)

PENDING_STATUS = "The function is running asynchronously and the results are pending."
"""The status a streaming tool's call answers with at once (google-adk's words)."""

STOP_TIMEOUT = 1.0
"""Seconds a stopped streaming tool is given to end before it is left behind (logged)."""


class _ToolChunk(LiveRequest):
    """A streaming tool's result on the client's queue: sent to the model, not stored,
    not copied to the tools' input streams."""


@dataclass
class _Call:
    tool_name: str
    call_id: str
    task: asyncio.Task[None]
    input_stream: LiveRequestQueue | None
    answered: asyncio.Event
    """Set once the call's pending response went to the model: its results may follow."""


class StreamingCalls:
    """The streaming tool calls running in one live invocation, by call id, and the
    events for the client (a tool's events, the live flow's side events)."""

    def __init__(self) -> None:
        self.calls: dict[str, _Call] = {}
        self.events: asyncio.Queue[Event] = asyncio.Queue()

    def active(self) -> dict[str, ActiveStreamingTool]:
        """The running calls by tool name (the latest call of each)."""
        return {
            call.tool_name: ActiveStreamingTool(task=call.task, stream=call.input_stream)
            for call in self.calls.values()
            if not call.task.done()
        }


def streaming_calls(ctx: InvocationContext) -> StreamingCalls:
    """The invocation's streaming calls (created on first use)."""
    counters = ctx._counters
    if counters.streaming_calls is None:
        counters.streaming_calls = StreamingCalls()
    return counters.streaming_calls


def side_events(ctx: InvocationContext) -> asyncio.Queue[Event]:
    """The queue of events a live session yields besides the model's: kept for the whole
    invocation, so nothing put there while a connection is replaced is lost."""
    return streaming_calls(ctx).events


def is_streaming_tool(tool: object) -> bool:
    """True for a FunctionTool over an async-generator function."""
    return isinstance(tool, FunctionTool) and tool._is_async_gen


def offer_stop_streaming(llm_request: LlmRequest) -> None:
    """Gives a live request whose agent has streaming tools the ``stop_streaming`` tool
    (unless the agent has a tool of that name: its calls then stop streaming tools)."""
    tools = llm_request.tools_dict
    if STOP_STREAMING in tools or not any(is_streaming_tool(t) for t in tools.values()):
        return
    from pyadk.tools.stop_streaming_tool import stop_streaming

    llm_request.append_tools([FunctionTool(stop_streaming)])


async def run_live_call(tool: FunctionTool, args: dict[str, Any], tool_context: ToolContext) -> Any:
    """A FunctionTool's call in a live run: a streaming tool starts in the background, a
    ``stop_streaming`` call with a ``function_name`` stops one; others run as usual."""
    if tool._is_async_gen:
        return await _start(tool, args, tool_context)
    if tool.name == STOP_STREAMING and "function_name" in (args or {}):
        name = args["function_name"]
        if not isinstance(name, str):
            return {"error": "stop_streaming requires a string function_name."}
        return await stop_streaming_calls(tool_context._invocation_context, name)
    return await tool._call_function(args, tool_context)


async def _start(tool: FunctionTool, args: dict[str, Any], tool_context: ToolContext) -> Any:
    """Starts the call's generator in a task; the pending status (or, for arguments the
    function refuses, the error) answers the call."""
    ctx = tool_context._invocation_context
    call_id = tool_context.function_call_id
    if not call_id:
        raise ValueError(f"The live call to {tool.name!r} has no function call id.")
    stream = LiveRequestQueue() if _takes_input_stream(tool) else None
    hidden = {"input_stream": stream} if stream is not None else {}
    generator = await tool._call_function(args, tool_context, as_generator=True, **hidden)
    if not inspect.isasyncgen(generator):
        return generator  # invalid arguments: the error answers the call
    registry = streaming_calls(ctx)
    answered = asyncio.Event()
    task = asyncio.create_task(
        _drive(ctx, registry, tool.name, call_id, generator, answered),
        name=f"streaming tool {tool.name} ({call_id})",
    )
    # Registered before the task first runs: its input stream misses nothing.
    registry.calls[call_id] = _Call(tool.name, call_id, task, stream, answered)
    return {"status": PENDING_STATUS}


async def _drive(
    ctx: InvocationContext,
    registry: StreamingCalls,
    name: str,
    call_id: str,
    generator: AsyncGenerator[Any, Any],
    answered: asyncio.Event,
) -> None:
    """Runs the generator once the call's pending answer went to the model, sending
    each value it yields on as it comes."""
    queue = ctx.live_request_queue
    assert queue is not None
    try:
        await answered.wait()
        async with aclosing(generator) as values:
            async for value in values:
                if isinstance(value, Event):
                    _emit(ctx, registry, name, call_id, value)
                else:
                    content = _response_content(name, call_id, value)
                    queue.send(_ToolChunk(content=content, partial=True))
    except Exception:  # (a cancellation is not one: it ends the task as it is)
        # The model waits for the call's results: it is told the call failed (without
        # the details, which are logged).
        logger.exception(
            "Streaming tool %r (call %s) of agent %r failed.", name, call_id, ctx.agent.name
        )
        error = {"error": f"Invoking `{name}()` failed with an internal error."}
        queue.send(_ToolChunk(content=_response_content(name, call_id, error)))
    finally:
        registry.calls.pop(call_id, None)


def _emit(
    ctx: InvocationContext, registry: StreamingCalls, name: str, call_id: str, event: Event
) -> None:
    """Delivers the message of an event a tool yielded to the client: a new event with
    its content only (role ``user``)."""
    if event.content is None:
        logger.warning(
            "Streaming tool %r yielded an Event without content: nothing to deliver.", name
        )
        return
    if event.actions.model_dump(exclude_defaults=True, exclude_none=True):
        logger.warning(
            "Streaming tool %r yielded an Event with actions, which are ignored: only its "
            "content is delivered.",
            name,
        )
    content = event.content.model_copy(deep=True, update={"role": "user"})
    delivered = construct(
        Event,
        invocation_id=ctx.invocation_id,
        author=ctx.agent.name,
        branch=f"{name}@{call_id}",
        content=content,
    )
    registry.events.put_nowait(delivered)


def _response_content(name: str, call_id: str, value: Any) -> types.Content:
    """A yielded value as a function response of the call."""
    if isinstance(value, types.FunctionResponse):  # its payload; the call's id and name
        response = value.model_copy(update={"id": call_id, "name": name})
    elif isinstance(value, dict):
        response = construct(types.FunctionResponse, id=call_id, name=name, response=value)
    else:
        response = function_response_of(call_id, name, value)
    part = construct(types.Part, function_response=response)
    return construct(types.Content, role="user", parts=[part])


def _takes_input_stream(tool: FunctionTool) -> bool:
    """True when the function has an ``input_stream`` parameter for a LiveRequestQueue
    (annotated so, or not annotated)."""
    parameter = tool._signature_parameters.get("input_stream")
    if parameter is None:
        return False
    annotation = parameter.annotation
    if annotation is inspect.Parameter.empty or annotation is LiveRequestQueue:
        return True
    return isinstance(annotation, str) and annotation.rsplit(".", 1)[-1] == "LiveRequestQueue"


def copy_to_input_streams(ctx: InvocationContext, request: LiveRequest) -> None:
    """Copies a request of the client to the input streams of the running tools."""
    registry = ctx._counters.streaming_calls
    if registry is None or isinstance(request, _ToolChunk):
        return
    for call in registry.calls.values():
        if call.input_stream is not None:
            call.input_stream.send(request)


def calls_answered(ctx: InvocationContext, responses: list[types.FunctionResponse]) -> None:
    """Lets the streaming calls among ``responses`` (sent to the model) deliver results."""
    registry = ctx._counters.streaming_calls
    if registry is None:
        return
    for response in responses:
        call = registry.calls.get(response.id or "")
        if call is not None:
            call.answered.set()


async def stop_streaming_calls(ctx: InvocationContext, function_name: str) -> dict[str, str]:
    """Cancels the running calls of the streaming tool ``function_name``; the status
    google-adk answers ``stop_streaming`` with."""
    registry = ctx._counters.streaming_calls
    running = [
        call
        for call in (registry.calls.values() if registry is not None else ())
        if call.tool_name == function_name and not call.task.done()
    ]
    if registry is None or not running:
        return {"status": f"No active streaming function named {function_name} found"}
    left = await _cancel(registry, running)
    if left:
        return {"status": f"The task is not cancelled yet for {function_name}."}
    logger.info("Streaming function %s stopped.", function_name)
    return {"status": f"Successfully stopped streaming function {function_name}"}


async def stop_all_streaming_calls(ctx: InvocationContext) -> None:
    """Cancels every streaming call still running (the agent's live run ends)."""
    registry = ctx._counters.streaming_calls
    if registry is None or not registry.calls:
        return
    await _cancel(registry, list(registry.calls.values()))
    registry.calls.clear()  # even a task that ignored the cancellation gets no input


async def _cancel(registry: StreamingCalls, calls: list[_Call]) -> list[_Call]:
    """Cancels the calls' tasks and waits up to :data:`STOP_TIMEOUT`; the calls still
    running then (logged)."""
    tasks = [call.task for call in calls]
    for task in tasks:
        task.cancel()
    await asyncio.wait(tasks, timeout=STOP_TIMEOUT)
    left = []
    for call in calls:
        task = call.task
        if not task.done():
            logger.warning(
                "Streaming tool %r (call %s) ignored its cancellation and is still running.",
                call.tool_name,
                call.call_id,
            )
            left.append(call)
            continue
        registry.calls.pop(call.call_id, None)  # a task cancelled before it ran
        if not task.cancelled() and task.exception() is not None:
            logger.error(
                "Streaming tool %r (call %s) failed while stopping.",
                call.tool_name,
                call.call_id,
                exc_info=task.exception(),
            )
    return left


async def stopping_streaming_tools(
    ctx: InvocationContext, events: AsyncGenerator[Event, None]
) -> AsyncGenerator[Event, None]:
    """``events`` (an agent's live run), then its streaming calls still running are
    cancelled: when the run ends, fails, or its caller stops reading."""
    try:
        async with aclosing(events) as run:
            async for event in run:
                yield event
    finally:
        await stop_all_streaming_calls(ctx)
