"""pyadk's span of live runs: ``send_data``, the history sent to a new model connection.

google-adk records the same span (``trace_send_data``) when a live run opens a connection
with history: the invocation id, an event id (a fresh one: the history is no event), and
the contents sent, their inline data (audio, images) reduced to a description. A live
run's tool calls have the ``execute_tool`` spans of :mod:`pyadk.telemetry.spans`, as in
``run_async``; a live model connection has no ``call_llm`` span (nor in google-adk).

As with the other spans, the flow calls this only after
:func:`~pyadk.telemetry.get_tracer` returned a tracer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pyadk.telemetry import attributes as attr
from pyadk.telemetry.spans import CurrentSpan

if TYPE_CHECKING:
    from opentelemetry.trace import Tracer

    from pyadk import types
    from pyadk.agents.invocation_context import InvocationContext


class SendDataSpan(CurrentSpan):
    """``with SendDataSpan(tracer, ctx, contents):`` around sending ``contents`` to a live
    connection: a ``send_data`` span, current inside the block (no ``yield`` in it)."""

    def __init__(
        self,
        tracer: Tracer,
        ctx: InvocationContext,
        contents: list[types.Content],
        event_id: str | None = None,
    ) -> None:
        self._start(tracer, "send_data", lambda: send_data_attributes(ctx, contents, event_id))


def send_data_attributes(
    ctx: InvocationContext, contents: list[types.Content], event_id: str | None = None
) -> dict[str, Any]:
    """The ``send_data`` span's attributes (``event_id`` None: a new id)."""
    if event_id is None:
        from pyadk.events.event import Event

        event_id = Event.new_id()
    data = (
        attr.truncate(attr.to_json([_summarized(content) for content in contents]))
        if attr.capture_content()
        else attr.EMPTY_JSON
    )
    return {
        attr.GEN_AI_AGENT_NAME: ctx.agent.name,
        attr.GEN_AI_CONVERSATION_ID: ctx.session.id,
        attr.ADK_INVOCATION_ID: ctx.invocation_id,
        attr.ADK_EVENT_ID: event_id,
        attr.LLM_REQUEST_CONTENTS: len(contents),
        attr.ADK_DATA: data,
    }


def _summarized(content: types.Content) -> dict[str, Any]:
    """``content`` as JSON, each inline blob replaced by its mime type and size (and no
    thought signatures: opaque bytes)."""
    parts = []
    for part in content.parts or ():
        blob = part.inline_data
        if blob is None:
            parts.append(
                part.model_dump(mode="json", exclude_none=True, exclude={"thought_signature"})
            )
        else:
            size = len(blob.data or b"")
            parts.append({"text": f"<inline_data: {blob.mime_type or 'unknown'}, {size} bytes>"})
    summary: dict[str, Any] = {"parts": parts}
    if content.role is not None:
        summary["role"] = content.role
    return summary
