"""Replays an eval case's user messages through a Runner and records what happened."""

from __future__ import annotations

from collections.abc import Sequence

from pyadk import types
from pyadk.evaluation.app_details import AppDetailsRecorder
from pyadk.evaluation.eval_case import EvalCase, IntermediateData, Invocation
from pyadk.events.event import Event
from pyadk.runners import Runner

DEFAULT_USER_ID = "test_user_id"


def invocation_from_events(user_content: types.Content, events: Sequence[Event]) -> Invocation:
    """The :class:`Invocation` one turn's events make: its tool calls and results in
    order, its last final text as the final response, any earlier text (a sub-agent's
    answer, words said before a tool call) as intermediate responses."""
    said = [e for e in events if not e.partial and e.content is not None and e.content.parts]
    final = next((e for e in reversed(said) if e.is_final_response() and _text_parts(e)), None)
    data = IntermediateData()
    for event in said:
        assert event.content is not None
        for part in event.content.parts or ():
            if part.function_call is not None:
                data.tool_uses.append(part.function_call)
            if part.function_response is not None:
                data.tool_responses.append(part.function_response)
        text = _text_parts(event)
        if text and event is not final:
            data.intermediate_responses.append((event.author, text))
    return Invocation(
        invocation_id=events[0].invocation_id if events else "",
        user_content=user_content,
        final_response=final.content if final is not None else None,
        intermediate_data=data,
        creation_timestamp=events[-1].timestamp if events else 0.0,
    )


def _text_parts(event: Event) -> list[types.Part]:
    content = event.content
    if content is None:
        return []
    return [p for p in content.parts or () if p.text and not p.thought]


async def generate_invocations(
    runner: Runner,
    eval_case: EvalCase,
    *,
    user_id: str,
    session_id: str,
    app_details: AppDetailsRecorder | None = None,
) -> list[Invocation]:
    """Sends each expected invocation's user message in turn, on one session; with
    ``app_details`` (a plugin of ``runner``), each invocation records what its agents
    were told."""
    actual = []
    for expected in eval_case.conversation:
        if app_details is not None:
            app_details.reset()
        events = [
            event
            async for event in runner.run_async(
                user_id=user_id, session_id=session_id, new_message=expected.user_content
            )
        ]
        invocation = invocation_from_events(expected.user_content, events)
        if app_details is not None:
            invocation.app_details = app_details.app_details()
        actual.append(invocation)
    return actual
