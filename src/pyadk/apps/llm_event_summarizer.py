"""LlmEventSummarizer: summarises events with a model call."""

from __future__ import annotations

from pyadk import types
from pyadk.apps.base_events_summarizer import BaseEventsSummarizer
from pyadk.events.event import Event
from pyadk.events.event_actions import EventActions
from pyadk.events.event_compaction import EventCompaction
from pyadk.models.base_llm import BaseLlm
from pyadk.models.llm_request import LlmRequest

_PROMPT = (
    "Summarise the conversation below between a user and an AI agent so that the agent "
    "can continue it from the summary alone. It may begin with an earlier summary. "
    "State the language the user writes in, what the user asked for, the facts and "
    "decisions established so far, the tools the agent called (by exact name) and what "
    "they returned, and every question or task still open. Be concise.\n\n"
    "{conversation_history}"
)

_MAX_TOOL_CHARS = 2000
"""A tool call's arguments or result is cut to this many characters in the prompt."""


class LlmEventSummarizer(BaseEventsSummarizer):
    """Asks ``llm`` for a summary of the events and returns it as a compaction event.

    ``prompt_template`` must hold a ``{conversation_history}`` placeholder: the events
    rendered one line per text, tool call and tool result (thoughts included, except a
    previous summary's). The summary is stored with role ``model``; the model call is
    not an event of the session.
    """

    def __init__(self, llm: BaseLlm, prompt_template: str | None = None) -> None:
        self._llm = llm
        self._prompt_template = prompt_template or _PROMPT

    async def maybe_summarize_events(self, *, events: list[Event]) -> Event | None:
        """The compaction event for ``events``; None for no events or no model answer."""
        if not events:
            return None
        prompt = self._prompt_template.format(conversation_history=_render(events))
        request = LlmRequest(
            model=self._llm.model,
            contents=[types.Content(role="user", parts=[types.Part(text=prompt)])],
        )
        summary: types.Content | None = None
        usage: types.UsageMetadata | None = None
        async for response in self._llm.generate_content_async(request, stream=False):
            if response.content is not None and response.content.parts:
                summary, usage = response.content, response.usage_metadata
                break
        if summary is None:
            return None
        summary = summary.model_copy(update={"role": "model"})
        compaction = EventCompaction(
            start_timestamp=events[0].timestamp,
            end_timestamp=events[-1].timestamp,
            compacted_content=summary,
        )
        return Event(
            author="user",
            invocation_id=Event.new_id(),
            actions=EventActions(compaction=compaction),
            usage_metadata=usage,
        )


def _render(events: list[Event]) -> str:
    lines: list[str] = []
    for event in events:
        content = event.content
        if content is None or not content.parts:
            continue
        is_summary = event.actions.compaction is not None
        author = event.author
        for part in content.parts:
            if part.text:
                if part.thought:
                    if not is_summary:
                        lines.append(f"{author} (thought): {part.text}")
                else:
                    lines.append(f"{author}: {part.text}")
            if part.function_call is not None:
                call = part.function_call
                lines.append(f"{author} called tool {call.name}({_cut(str(call.args))})")
            if part.function_response is not None:
                result = part.function_response
                lines.append(f"tool {result.name} returned: {_cut(str(result.response))}")
    return "\n".join(lines)


def _cut(text: str) -> str:
    if len(text) <= _MAX_TOOL_CHARS:
        return text
    return f"{text[:_MAX_TOOL_CHARS]}... [{len(text) - _MAX_TOOL_CHARS} more characters]"
