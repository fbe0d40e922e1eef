"""NL-planning processors: an agent's planner shapes its requests and rewrites its
responses.

Installed (by :func:`install`) only in the flows of agents that have a planner, so
other agents' steps pay nothing for planning.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Sequence
from typing import TYPE_CHECKING

from pyadk import types
from pyadk.agents.callback_context import CallbackContext
from pyadk.agents.readonly_context import ReadonlyContext
from pyadk.events.event import Event
from pyadk.flows.processors.base import BaseLlmResponseProcessor, SilentRequestProcessor
from pyadk.flows.processors.contents import ContentsRequestProcessor
from pyadk.flows.processors.output_schema import OutputSchemaRequestProcessor
from pyadk.planners.base_planner import BasePlanner
from pyadk.planners.built_in_planner import BuiltInPlanner
from pyadk.utils.fast_models import assembled, set_field

if TYPE_CHECKING:
    from pyadk.agents.invocation_context import InvocationContext
    from pyadk.flows.base_llm_flow import BaseLlmFlow
    from pyadk.models.llm_request import LlmRequest
    from pyadk.models.llm_response import LlmResponse


class NlPlanningRequestProcessor(SilentRequestProcessor):
    """A ``BuiltInPlanner`` puts its thinking config on the request. Any other planner
    appends its planning instruction, and the history is sent without thought flags:
    the model reads its earlier plans and reasoning as plain text (contents made of
    thoughts only are left out), as in google-adk."""

    async def process(self, invocation_context: InvocationContext, llm_request: LlmRequest) -> None:
        planner = _planner(invocation_context)
        if planner is None:
            return
        if isinstance(planner, BuiltInPlanner):
            planner.apply_thinking_config(llm_request)
            return
        instruction = planner.build_planning_instruction(
            ReadonlyContext(invocation_context), llm_request
        )
        if instruction:
            llm_request.append_instructions([instruction])
        _unmark_thoughts(llm_request)


class NlPlanningResponseProcessor(BaseLlmResponseProcessor):
    """Replaces the response's parts with the planner's ``process_planning_response``
    result (every response, streamed chunks included); yields an event carrying the
    state the planner wrote, if any."""

    async def run_async(
        self, invocation_context: InvocationContext, llm_response: LlmResponse
    ) -> AsyncGenerator[Event, None]:
        content = llm_response.content
        if content is None or not content.parts:
            return
        planner = _planner(invocation_context)
        if planner is None or (
            type(planner).process_planning_response is BuiltInPlanner.process_planning_response
        ):
            return  # a planner that never rewrites responses
        callback_context = CallbackContext(invocation_context)
        parts = planner.process_planning_response(callback_context, content.parts)
        if parts:
            parts = [p if type(p) is types.Part else types.Part.model_validate(p) for p in parts]
            set_field(llm_response, "content", _content(content.role, parts))
        if callback_context.state.has_delta():
            yield Event(
                invocation_id=invocation_context.invocation_id,
                author=invocation_context.agent.name,
                branch=invocation_context.branch,
                actions=callback_context.actions,
            )


request_processor = NlPlanningRequestProcessor()
response_processor = NlPlanningResponseProcessor()


def install(flow: BaseLlmFlow) -> None:
    """Adds the planning processors to ``flow``: the request processor right after the
    contents processor (before the output-schema one when there is no contents
    processor), the response processor last. Installing twice changes nothing."""
    requests = flow.request_processors
    if request_processor not in requests:
        requests.insert(_after_contents(requests), request_processor)
    if response_processor not in flow.response_processors:
        flow.response_processors.append(response_processor)


def _after_contents(processors: Sequence[object]) -> int:
    for index, processor in enumerate(processors):
        if isinstance(processor, ContentsRequestProcessor):
            return index + 1
    for index, processor in enumerate(processors):
        if isinstance(processor, OutputSchemaRequestProcessor):
            return index
    return len(processors)


def _planner(invocation_context: InvocationContext) -> BasePlanner | None:
    planner = getattr(invocation_context.agent, "planner", None)
    return planner if isinstance(planner, BasePlanner) else None


def _unmark_thoughts(llm_request: LlmRequest) -> None:
    """Sends the request's thought parts as plain parts and leaves out the contents
    that hold nothing but thoughts. The contents are shared with the session and the
    history cache: changed ones are replaced, never edited."""
    contents = llm_request.contents
    changed: list[types.Content] | None = None
    for index, content in enumerate(contents):
        parts = content.parts
        if not parts or not any(part.thought for part in parts):
            if changed is not None:
                changed.append(content)
            continue
        if changed is None:
            changed = contents[:index]
        if all(_invisible(part) for part in parts):
            continue
        plain = [
            part.model_copy(update={"thought": None}) if part.thought else part for part in parts
        ]
        changed.append(_content(content.role, plain))
    if changed is not None:
        set_field(llm_request, "contents", changed)


def _invisible(part: types.Part) -> bool:
    """True for a part the model need not see again: a thought or an empty part, with no
    function call or response and no thought signature."""
    if part.function_call or part.function_response or part.thought_signature:
        return False
    return bool(part.thought) or not (
        part.text
        or part.inline_data
        or part.file_data
        or part.executable_code
        or part.code_execution_result
    )


def _content(role: str | None, parts: list[types.Part]) -> types.Content:
    return assembled(types.Content, {"role": role, "parts": parts}, {"role", "parts"})
