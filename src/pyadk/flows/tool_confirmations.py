"""Tool calls that wait for a person's approval: the gate every call passes, the
``adk_request_confirmation`` request that pauses the agent, and the resume that runs
(or refuses) the approved calls when the client answers.

The gate sits in the tool executor, before any callback or ``run_async``, for every
tool type: a call that needs approval and has none is not run; a rejected call is not
run. An answer is bound to the stored request: the call it approves is read from the
session (its id, name and arguments), never from the client's message.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from pyadk import types
from pyadk.events.event import Event
from pyadk.events.tool_confirmation import (
    REQUEST_CONFIRMATION_FUNCTION_CALL_NAME as REQUEST_NAME,
)
from pyadk.events.tool_confirmation import ToolConfirmation
from pyadk.events.tool_confirmation import confirmation_answers as answers
from pyadk.flows.client_requests import answered_after, calls_event, find_request
from pyadk.flows.functions import new_function_call_id

if TYPE_CHECKING:
    from pyadk.agents.invocation_context import InvocationContext
    from pyadk.tools.base_tool import BaseTool
    from pyadk.tools.tool_context import ToolContext

PENDING = "This tool call requires confirmation, please approve or reject."
REJECTED = "This tool call is rejected."


class ToolConfirmationError(ValueError):
    """A client's confirmation that does not answer a pending request of this session."""


async def gate(
    tool: BaseTool,
    args: dict[str, Any],
    tool_context: ToolContext,
    confirmation: ToolConfirmation | None,
) -> dict[str, Any] | None:
    """None when the call may run; else the result it gets instead of running."""
    if confirmation is None:
        if not await tool.check_require_confirmation(args, tool_context):
            return None
        shown = ", ".join(f"{k}={v!r}" for k, v in args.items())
        tool_context.request_confirmation(hint=f"Approve or reject {tool.name}({shown}).")
        tool_context.actions.skip_summarization = True
        return {"error": PENDING}
    if not confirmation.confirmed:
        return {"error": REJECTED}
    tool_context.tool_confirmation = confirmation
    return None


def request_event(ctx: InvocationContext, call_event: Event, response: Event) -> Event | None:
    """The event asking the client to approve the calls ``response`` held back: one
    long-running ``adk_request_confirmation`` call per call (google-adk's format)."""
    calls = {call.id: call for call in call_event.get_function_calls()}
    parts: list[types.Part] = []
    ids: set[str] = set()
    for call_id, confirmation in response.actions.requested_tool_confirmations.items():
        original = calls.get(call_id)
        if original is None:
            continue
        request_id = new_function_call_id()
        ids.add(request_id)
        args = {
            "originalFunctionCall": original.model_dump(by_alias=True, exclude_none=True),
            "toolConfirmation": confirmation.model_dump(by_alias=True, exclude_none=True),
        }
        call = types.FunctionCall(name=REQUEST_NAME, id=request_id, args=args)
        parts.append(types.Part(function_call=call))
    if not parts:
        return None
    return Event(
        invocation_id=ctx.invocation_id,
        author=ctx.agent.name,
        branch=ctx.branch,
        content=types.Content(role="model", parts=parts),
        long_running_tool_ids=ids,
    )


def check_answers(events: list[Event], message: types.Content | None) -> None:
    """Refuses (ToolConfirmationError) a message that answers a confirmation request the
    session does not hold: checked before the message is stored."""
    for response in answers(message):
        if find_request(events, response.id, REQUEST_NAME) is None:
            raise ToolConfirmationError(
                f"No confirmation request {response.id!r} in this session to answer."
            )


def approved_calls(
    ctx: InvocationContext, answered: list[types.FunctionResponse]
) -> tuple[Event, dict[str, ToolConfirmation]] | None:
    """The calls of this agent that ``answered`` approves or rejects, as an event to
    execute, with each call's confirmation (empty when every one was already answered);
    None when no answer is to this agent. ToolConfirmationError for an answer to no
    request of the session, or whose call the session does not hold as asked."""
    events = ctx.session.events
    agent_name = ctx.agent.name
    calls: list[types.FunctionCall] = []
    confirmations: dict[str, ToolConfirmation] = {}
    mine = False
    for response in answered:
        found = find_request(events, response.id, REQUEST_NAME)
        if found is None:
            raise ToolConfirmationError(
                f"No confirmation request {response.id!r} in this session to answer."
            )
        index, author, request = found
        if author != agent_name:
            continue  # another agent's request: that agent resumes it
        mine = True
        original = _original_call(request)
        call_id = original.id or ""
        if call_id in confirmations or answered_after(events, index, call_id):
            continue
        _check_asked(events[:index], agent_name, original)
        try:
            confirmations[call_id] = ToolConfirmation.from_response_dict(response.response)
        except (ValueError, ValidationError) as error:
            raise ToolConfirmationError(
                f"Invalid confirmation for {original.name}: {error}"
            ) from None
        calls.append(original)
    if not mine:
        return None
    return calls_event(ctx.invocation_id, agent_name, ctx.branch, calls), confirmations


def earlier_answers(
    events: list[Event], agent_name: str, call_ids: set[str]
) -> dict[str, ToolConfirmation]:
    """The latest answer the session holds to this agent's confirmation request for each
    call of ``call_ids`` that asked for one: a call run again (after a credential
    answer) is not asked for approval twice."""
    asked: dict[str, str] = {}  # request id -> the call it asked about
    found: dict[str, ToolConfirmation] = {}
    for event in events:
        if event.author == agent_name:
            for call in event.get_function_calls():
                if call.name == REQUEST_NAME and call.id:
                    original = (call.args or {}).get("originalFunctionCall") or {}
                    if original.get("id") in call_ids:
                        asked[call.id] = original["id"]
        elif asked and event.author == "user":
            for response in answers(event.content):
                call_id = asked.get(response.id or "")
                if call_id is None:
                    continue
                try:
                    found[call_id] = ToolConfirmation.from_response_dict(response.response)
                except (ValueError, ValidationError):
                    continue  # refused when it came: never stored
    return found


def _original_call(request: types.FunctionCall) -> types.FunctionCall:
    data = (request.args or {}).get("originalFunctionCall")
    try:
        original = types.FunctionCall.model_validate(data)
    except ValidationError:
        original = None
    if original is None or not original.id or not original.name:
        raise ToolConfirmationError(f"Confirmation request {request.id!r} names no tool call.")
    return original


def _check_asked(events: list[Event], agent_name: str, original: types.FunctionCall) -> None:
    """The session must hold the call as the request shows it, held back for approval."""
    call = next(
        (
            c
            for e in events
            if e.author == agent_name
            for c in e.get_function_calls()
            if c.id == original.id and c.name != REQUEST_NAME
        ),
        None,
    )
    if call is None or call.name != original.name or (call.args or {}) != (original.args or {}):
        raise ToolConfirmationError(
            f"Tool call {original.id!r} ({original.name}) does not match the session's history."
        )
    if not any(original.id in e.actions.requested_tool_confirmations for e in events):
        raise ToolConfirmationError(f"Tool call {original.id!r} did not ask for confirmation.")
