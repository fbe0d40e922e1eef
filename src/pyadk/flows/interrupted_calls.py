"""Tool calls cut off by an interruption: run again when harmless, else held for approval.

When an invocation is resumed after a crash (see :mod:`pyadk.agents.interrupted`), a
model event whose calls never got a result may have had them half done: a payment may
have gone out. Calls of ``idempotent`` tools (and unknown tools, which only produce an
error result) run again; every other call is held: its result says so and the client
is asked to approve or reject it (the usual ``adk_request_confirmation`` request), so
it runs again only when a person says so.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import TYPE_CHECKING

from pyadk import types
from pyadk.events.event import Event
from pyadk.events.event_actions import EventActions
from pyadk.events.tool_confirmation import ToolConfirmation
from pyadk.flows import functions, tool_confirmations

if TYPE_CHECKING:
    from pyadk.agents.invocation_context import InvocationContext
    from pyadk.tools.base_tool import BaseTool

INTERRUPTED_HINT = (
    "{call} was cut off by an interruption and may have run already. "
    "Approve to run it again, or reject to skip it."
)


async def resume_calls(
    ctx: InvocationContext, call_event: Event, tools: dict[str, BaseTool]
) -> AsyncGenerator[Event, None]:
    """The results of ``call_event``'s calls that may run again, then the held results
    of the others and the request asking the client about them."""
    rerun: list[types.FunctionCall] = []
    held: list[types.FunctionCall] = []
    for call in call_event.get_function_calls():
        tool = tools.get(call.name or "")
        (rerun if tool is None or tool.idempotent else held).append(call)
    if rerun:
        response = await functions.handle_function_calls_async(
            ctx, _with_calls(call_event, rerun), tools
        )
        if response is not None:
            yield response
            if response.actions.requested_tool_confirmations:
                request = tool_confirmations.request_event(ctx, call_event, response)
                if request is not None:
                    yield request
    if held:
        response = _held(ctx, held)
        yield response
        request = tool_confirmations.request_event(ctx, call_event, response)
        if request is not None:
            yield request


def _with_calls(call_event: Event, calls: list[types.FunctionCall]) -> Event:
    """A copy of ``call_event`` holding only ``calls``."""
    content = types.Content(role="model", parts=[types.Part(function_call=c) for c in calls])
    return call_event.model_copy(update={"content": content})


def _held(ctx: InvocationContext, calls: list[types.FunctionCall]) -> Event:
    """The results of calls held for approval, as the approval gate gives them."""
    confirmations: dict[str, ToolConfirmation] = {}
    parts: list[types.Part] = []
    for call in calls:
        shown = ", ".join(f"{k}={v!r}" for k, v in (call.args or {}).items())
        confirmations[call.id or ""] = ToolConfirmation(
            hint=INTERRUPTED_HINT.format(call=f"{call.name}({shown})")
        )
        response = types.FunctionResponse(
            id=call.id, name=call.name, response={"error": tool_confirmations.PENDING}
        )
        parts.append(types.Part(function_response=response))
    return Event(
        invocation_id=ctx.invocation_id,
        author=ctx.agent.name,
        branch=ctx.branch,
        content=types.Content(role="user", parts=parts),
        actions=EventActions(skip_summarization=True, requested_tool_confirmations=confirmations),
    )
