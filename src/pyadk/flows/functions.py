"""Tool execution: runs the function calls of a model response, concurrently."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import AsyncGenerator, Callable, Coroutine
from typing import TYPE_CHECKING, Any

from pyadk import types
from pyadk.agents.budget import check_tool_calls
from pyadk.agents.llm_agent import LlmAgent
from pyadk.errors import ToolTimeoutError
from pyadk.events.event import Event
from pyadk.events.event_actions import EventActions
from pyadk.flows.tool_result_media import function_response_of
from pyadk.telemetry import get_tracer
from pyadk.telemetry.spans import ToolSpan, trace_merged_tool_calls
from pyadk.tools._paused_calls import ToolCallPaused, hold
from pyadk.tools.tool_context import ToolContext
from pyadk.utils.callbacks import plugins_then_callbacks
from pyadk.utils.fast_models import construct
from pyadk.utils.ids import new_uuid4

if TYPE_CHECKING:
    from opentelemetry.trace import Tracer

    from pyadk.agents.invocation_context import InvocationContext
    from pyadk.events.tool_confirmation import ToolConfirmation
    from pyadk.tools.base_tool import BaseTool

CLIENT_CALL_ID_PREFIX = "adk-"

_CallResult = tuple[types.Part, EventActions] | None
"""A call's response part and actions; None for a long-running tool with no answer yet."""


def new_function_call_id() -> str:
    """An id for a function call the model left without one."""
    return CLIENT_CALL_ID_PREFIX + new_uuid4()


def populate_client_function_call_ids(event: Event) -> None:
    """Gives every function call of ``event`` an id."""
    for call in event.get_function_calls():
        if not call.id:
            call.id = new_function_call_id()


def long_running_call_ids(event: Event, tools_dict: dict[str, BaseTool]) -> set[str]:
    """Ids of the calls in ``event`` that target long-running tools."""
    return {
        call.id
        for call in event.get_function_calls()
        if call.id and call.name in tools_dict and tools_dict[call.name].is_long_running
    }


def streams_progress(call_event: Event, tools_dict: dict[str, BaseTool]) -> bool:
    """Whether a call in ``call_event`` targets a tool that streams progress: its calls
    then run through :func:`stream_function_calls`."""
    content = call_event.content
    for part in (content.parts or ()) if content is not None else ():
        call = part.function_call
        if call is not None:
            tool = tools_dict.get(call.name or "")
            if tool is not None and tool.streams_progress:
                return True
    return False


async def stream_function_calls(
    ctx: InvocationContext,
    call_event: Event,
    tools_dict: dict[str, BaseTool],
    confirmations: dict[str, ToolConfirmation] | None = None,
) -> AsyncGenerator[Event, None]:
    """:func:`handle_function_calls_async` in a task, yielding the calls' progress
    events (partial) as they come, then the response event (if any).

    Only for calls of which one streams (see :func:`streams_progress`): the calls run
    as they would otherwise, but the step can pass reports on while they run.
    """
    from pyadk.tools.tool_progress import ProgressSink, current_sink

    names = {
        call.id: call.name
        for call in call_event.get_function_calls()
        if call.id and call.name and getattr(tools_dict.get(call.name), "streams_progress", False)
    }
    queue: asyncio.Queue[Any] = asyncio.Queue()
    sink = ProgressSink(ctx, names, queue)
    done = object()

    def finished(_: asyncio.Task[Event | None]) -> None:
        sink.closed = True  # later reports (a stray thread) are dropped
        queue.put_nowait(done)

    token = current_sink.set(sink)  # the task (and its calls' tasks) copy the context
    try:
        task = asyncio.create_task(
            handle_function_calls_async(ctx, call_event, tools_dict, confirmations)
        )
    finally:
        current_sink.reset(token)
    task.add_done_callback(finished)
    try:
        while (item := await queue.get()) is not done:
            yield item
        response = task.result()  # what the calls raised, as without streaming
    finally:
        if not task.done():  # the caller stopped reading: the calls are cancelled
            task.cancel()
            try:
                await task
            except (asyncio.CancelledError, Exception):
                pass
    if response is not None:
        yield response


async def handle_function_calls_async(
    ctx: InvocationContext,
    call_event: Event,
    tools_dict: dict[str, BaseTool],
    confirmations: dict[str, ToolConfirmation] | None = None,
) -> Event | None:
    """Runs every call in ``call_event``; returns one event with all the responses.

    Calls run concurrently, each with its own ToolContext; their state deltas and
    other actions are merged in call order. None when no call produced a response
    (long-running tools that return nothing). ``confirmations`` holds a person's
    answers to calls that asked for approval (by call id).
    """
    calls = call_event.get_function_calls()
    if not calls:
        return None
    budget = ctx.run_config.budget
    if budget is not None:
        check_tool_calls(ctx, budget, calls)
    execute: Callable[..., Coroutine[Any, Any, _CallResult]] = _execute_call
    tracer = get_tracer()
    event_id = None
    if tracer is not None:  # the tool spans carry the id of the response event
        event_id = Event.new_id()
        execute = functools.partial(_traced_execute_call, tracer, event_id)
    if confirmations:
        execute = functools.partial(execute, confirmations=confirmations)
    if len(calls) == 1:
        results = [await execute(ctx, calls[0], tools_dict, concurrent=False)]
    else:
        try:
            async with asyncio.TaskGroup() as group:
                tasks = [
                    group.create_task(execute(ctx, call, tools_dict, concurrent=True))
                    for call in calls
                ]
        except ExceptionGroup as errors:
            # Raise what the tool raised, as for a single call, not TaskGroup's wrapper
            # (keeping the error's own cause: ``from None`` would erase it).
            first = errors.exceptions[0]
            raise first from first.__cause__
        results = [task.result() for task in tasks]
    parts: list[types.Part] = []
    answered = [result for result in results if result is not None]
    if not answered:
        return None
    if len(answered) == 1 and _merges_whole(answered[0][1]):
        part, actions = answered[0]  # what merging it into new actions would give
        parts.append(part)
    else:
        actions = construct(EventActions)
        for part, call_actions in answered:
            parts.append(part)
            actions.merge(call_actions)
    event = construct(
        Event,
        invocation_id=ctx.invocation_id,
        author=ctx.agent.name,
        branch=ctx.branch,
        content=construct(types.Content, role="user", parts=parts),
        actions=actions,
    )
    if event_id is not None:
        event.__dict__["id"] = event_id
        if tracer is not None and len(calls) > 1:
            trace_merged_tool_calls(tracer, ctx, event, len(calls))
    return event


def _merges_whole(actions: EventActions) -> bool:
    """True when :meth:`EventActions.merge` takes every field ``actions`` may hold (it
    leaves out the agent state, the outcome and compaction)."""
    return (
        actions.agent_state is None and actions.agent_outcome is None and actions.compaction is None
    )


async def _traced_execute_call(
    tracer: Tracer,
    event_id: str,
    ctx: InvocationContext,
    call: types.FunctionCall,
    tools_dict: dict[str, BaseTool],
    *,
    concurrent: bool,
    confirmations: dict[str, ToolConfirmation] | None = None,
) -> _CallResult:
    """:func:`_execute_call` inside an ``execute_tool <name>`` span."""
    with ToolSpan(tracer, ctx, call, tools_dict.get(call.name or ""), event_id) as span:
        result = await _execute_call(
            ctx, call, tools_dict, concurrent=concurrent, confirmations=confirmations
        )
        response = result[0].function_response if result is not None else None
        span.record(response.response if response is not None else None)
        return result


async def _execute_call(
    ctx: InvocationContext,
    call: types.FunctionCall,
    tools_dict: dict[str, BaseTool],
    *,
    concurrent: bool,
    confirmations: dict[str, ToolConfirmation] | None = None,
) -> _CallResult:
    tool_context = ToolContext(ctx, function_call_id=call.id)
    tool_context.concurrent = concurrent
    name = call.name or ""
    args: dict[str, Any] = dict(call.args or {})
    tool = tools_dict.get(name)
    if tool is None:
        from pyadk.flows.unknown_tools import answer_unknown_tool  # rare: a made-up name

        response: Any = await answer_unknown_tool(ctx, name, args, tool_context, list(tools_dict))
    else:
        response = None
        confirmation = confirmations.get(call.id or "") if confirmations else None
        if confirmation is not None or tool.require_confirmation:
            from pyadk.flows.tool_confirmations import gate  # rare: calls needing approval

            response = await gate(tool, args, tool_context, confirmation)
        if response is None:
            try:
                response = await _run_tool_with_callbacks(ctx, tool, args, tool_context)
            except ToolCallPaused as paused:  # a NodeTool's node waits for the client
                hold(ctx, paused)
                return None
            if response is None and tool.is_long_running:
                return None
    if isinstance(response, dict):  # the ordinary result: not searched for media
        function_response = construct(
            types.FunctionResponse, id=call.id, name=name, response=response
        )
    else:  # a part, a list of parts...: media goes into FunctionResponse.parts
        function_response = function_response_of(call.id, name, response)
    part = construct(types.Part, function_response=function_response)
    return part, tool_context.actions


async def _run_tool_with_callbacks(
    ctx: InvocationContext, tool: BaseTool, args: dict[str, Any], tool_context: ToolContext
) -> Any:
    agent = ctx.agent if isinstance(ctx.agent, LlmAgent) else None
    plugin_kwargs = {"tool": tool, "tool_args": args, "tool_context": tool_context}
    callback_kwargs = {"tool": tool, "args": args, "tool_context": tool_context}

    response = await before_tool(ctx, agent, plugin_kwargs, callback_kwargs)
    if response is None:
        try:
            response = await _call_tool(tool, args, tool_context, agent)
        except Exception as error:
            response = await on_tool_error(ctx, agent, plugin_kwargs, callback_kwargs, error)
            if response is None:
                raise
    altered = await plugins_then_callbacks(
        ctx.plugin_manager,
        "after_tool_callback",
        {**plugin_kwargs, "result": response},
        agent.after_tool_callback if agent else None,
        {**callback_kwargs, "tool_response": response},
    )
    return response if altered is None else altered


def before_tool(
    ctx: InvocationContext,
    agent: LlmAgent | None,
    plugin_kwargs: dict[str, Any],
    callback_kwargs: dict[str, Any],
) -> Coroutine[Any, Any, Any]:
    """The before-tool callbacks (plugins first); the first non-None result answers."""
    return plugins_then_callbacks(
        ctx.plugin_manager,
        "before_tool_callback",
        plugin_kwargs,
        agent.before_tool_callback if agent else None,
        callback_kwargs,
    )


def on_tool_error(
    ctx: InvocationContext,
    agent: LlmAgent | None,
    plugin_kwargs: dict[str, Any],
    callback_kwargs: dict[str, Any],
    error: Exception,
) -> Coroutine[Any, Any, Any]:
    """The tool-error callbacks (plugins first) for ``error``; None: nobody answered."""
    return plugins_then_callbacks(
        ctx.plugin_manager,
        "on_tool_error_callback",
        {**plugin_kwargs, "error": error},
        agent.on_tool_error_callback if agent else None,
        {**callback_kwargs, "error": error},
    )


async def _call_tool(
    tool: BaseTool, args: dict[str, Any], tool_context: ToolContext, agent: LlmAgent | None
) -> Any:
    """Runs the tool under the agent's ``tool_timeout`` and ``tool_retry`` policies."""
    timeout = agent.tool_timeout if agent is not None else None
    retry = agent.tool_retry if agent is not None else None
    if timeout is None and retry is None:
        return await tool.run_async(args=args, tool_context=tool_context)
    if timeout is not None:
        tool_context.concurrent = True  # a blocking sync tool must not hold the loop

    async def attempt() -> Any:
        try:
            async with asyncio.timeout(timeout):
                return await tool.run_async(args=args, tool_context=tool_context)
        except TimeoutError as error:
            if isinstance(error, ToolTimeoutError):
                raise
            raise ToolTimeoutError(f"Tool {tool.name!r} timed out after {timeout:g} s.") from None

    return await (retry.run(attempt) if retry is not None else attempt())
