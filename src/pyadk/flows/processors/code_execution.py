"""Code-execution processors: run the code blocks the model writes, feed the results back.

Installed by ``LlmAgent`` only for agents with a ``code_executor`` (see :func:`install`).
The response processor takes the first code block of a complete model response, drops
the text after it, yields the model's event (the block as an ``executable_code`` part),
runs the block in a worker thread and yields the result as a ``code_execution_result``
part. That event is not a final response, so the flow calls the model again, which
reads the result. The request processor rewrites earlier code and result parts as text
(between the executor's delimiters) and, for ``BuiltInCodeExecutor``, adds Gemini's
``code_execution`` tool instead.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncGenerator
from typing import TYPE_CHECKING

from pyadk import types
from pyadk.agents.llm_agent import LlmAgent
from pyadk.code_executors.base_code_executor import BaseCodeExecutor
from pyadk.code_executors.built_in_code_executor import BuiltInCodeExecutor
from pyadk.code_executors.code_execution_utils import (
    CodeExecutionInput,
    CodeExecutionResult,
    CodeExecutionUtils,
    converted_content,
    file_bytes,
)
from pyadk.events.event import Event
from pyadk.events.event_actions import EventActions
from pyadk.flows.processors import output_schema
from pyadk.flows.processors.base import BaseLlmResponseProcessor, SilentRequestProcessor

if TYPE_CHECKING:
    from pyadk.agents.invocation_context import InvocationContext
    from pyadk.flows.base_llm_flow import BaseLlmFlow
    from pyadk.models.llm_request import LlmRequest
    from pyadk.models.llm_response import LlmResponse

logger = logging.getLogger(__name__)


def install(flow: BaseLlmFlow) -> None:
    """Adds the code-execution processors to ``flow`` (once): the request processor just
    before the output-schema processor (else last), the response processor last."""
    requests = flow.request_processors
    if request_processor not in requests:
        schema = output_schema.request_processor
        index = requests.index(schema) if schema in requests else len(requests)
        requests.insert(index, request_processor)
    if response_processor not in flow.response_processors:
        flow.response_processors.append(response_processor)


def _executor(ctx: InvocationContext) -> tuple[LlmAgent, BaseCodeExecutor] | None:
    agent = ctx.agent
    if not isinstance(agent, LlmAgent) or agent.code_executor is None:
        return None
    return agent, agent.code_executor


class CodeExecutionRequestProcessor(SilentRequestProcessor):
    """Adds Gemini's tool for ``BuiltInCodeExecutor``; rewrites code parts as text."""

    async def process(self, invocation_context: InvocationContext, llm_request: LlmRequest) -> None:
        found = _executor(invocation_context)
        if found is None:
            return
        agent, executor = found
        if executor.optimize_data_file:
            raise ValueError(
                f"Agent {agent.name!r}: optimize_data_file=True is not supported by pyadk's "
                "code executors."
            )
        if isinstance(executor, BuiltInCodeExecutor):
            try:
                executor.process_llm_request(llm_request)
            except ValueError as error:
                raise ValueError(f"Agent {agent.name!r}: {error}") from None
        delimiters = executor.code_block_delimiters
        code_delimiter = delimiters[0] if delimiters else ("", "")
        contents = llm_request.contents
        for index, content in enumerate(contents):
            # A new Content where something changes: history contents are shared.
            new = converted_content(content, code_delimiter, executor.execution_result_delimiters)
            if new is not content:
                contents[index] = new


class CodeExecutionResponseProcessor(BaseLlmResponseProcessor):
    """Runs the first code block of a complete model response (see the module doc)."""

    async def run_async(
        self, invocation_context: InvocationContext, llm_response: LlmResponse
    ) -> AsyncGenerator[Event, None]:
        ctx = invocation_context
        found = _executor(ctx)
        if found is None or llm_response.partial or llm_response.content is None:
            return
        agent, executor = found
        if isinstance(executor, BuiltInCodeExecutor):
            event = await _save_generated_images(ctx, agent, llm_response.content)
            if event is not None:
                yield event
            return
        if _consecutive_failures(ctx, agent.name) >= executor.error_retry_attempts:
            return  # too many failed runs in a row: the answer stands as written
        parts = llm_response.content.parts or []
        # The model's reasoning is not searched for code. A planner that rewrites responses
        # marks its own (code-bearing) text as thought: then only signed thoughts are.
        signed_only = _rewrites_responses(agent)
        thoughts = [p for p in parts if p.thought and (p.thought_signature or not signed_only)]
        kept = [p for p in parts if not any(p is t for t in thoughts)]
        content = types.Content(role="model", parts=kept)
        code = CodeExecutionUtils.extract_code_and_truncate_content(
            content, executor.code_block_delimiters
        )
        if not code:
            return
        if thoughts:
            content.parts = [*thoughts, *(content.parts or [])]
        yield Event(
            invocation_id=ctx.invocation_id,
            author=agent.name,
            branch=ctx.branch,
            content=content,
            usage_metadata=llm_response.usage_metadata,
        )
        execution_id = ctx.session.id if executor.stateful else None
        code_input = CodeExecutionInput(code=code, execution_id=execution_id)
        result = await _execute(executor, ctx, code_input, agent.name)
        yield await _result_event(ctx, agent, result)
        llm_response.content = None  # replaced by the two events: the model goes on


async def _execute(
    executor: BaseCodeExecutor,
    ctx: InvocationContext,
    code_input: CodeExecutionInput,
    agent_name: str,
) -> CodeExecutionResult:
    """The executor's result; an executor that raises gives a failed result."""
    try:
        return await asyncio.to_thread(executor.execute_code, ctx, code_input)
    except Exception as error:
        logger.exception("Code executor of agent %r failed", agent_name)
        return CodeExecutionResult(
            stderr=f"The code executor failed: {type(error).__name__}: {error}"
        )


def _rewrites_responses(agent: LlmAgent) -> bool:
    """True when the agent's planner rewrites model responses (not BuiltInPlanner)."""
    if agent.planner is None:
        return False
    from pyadk.planners.built_in_planner import BuiltInPlanner

    method = type(agent.planner).process_planning_response
    return method is not BuiltInPlanner.process_planning_response


def _consecutive_failures(ctx: InvocationContext, agent_name: str) -> int:
    """Failed runs of ``agent_name`` since its last successful one in this invocation."""
    failures = 0
    for event in reversed(ctx.session.events):
        if event.invocation_id != ctx.invocation_id:
            break
        if event.author != agent_name or not event.has_trailing_code_execution_result():
            continue
        assert event.content is not None and event.content.parts
        result = event.content.parts[-1].code_execution_result
        if result is None or result.outcome != types.Outcome.OUTCOME_FAILED:
            break
        failures += 1
    return failures


async def _result_event(
    ctx: InvocationContext, agent: LlmAgent, result: CodeExecutionResult
) -> Event:
    """The event holding ``result``; its output files saved as artifacts."""
    actions = EventActions()
    if result.output_files:
        service = ctx.artifact_service
        if service is None:
            logger.warning(
                "Agent %r: code wrote files %s but the runner has no artifact service; "
                "they are not kept.",
                agent.name,
                [f.name for f in result.output_files],
            )
            result.output_files = []
        for file in result.output_files:
            actions.artifact_delta[file.name] = await service.save_artifact(  # type: ignore[union-attr]
                app_name=ctx.app_name,
                user_id=ctx.user_id,
                session_id=ctx.session.id,
                filename=file.name,
                artifact=types.Part.from_bytes(
                    data=file_bytes(file.content), mime_type=file.mime_type
                ),
            )
    part = CodeExecutionUtils.build_code_execution_result_part(result)
    return Event(
        invocation_id=ctx.invocation_id,
        author=agent.name,
        branch=ctx.branch,
        content=types.Content(role="model", parts=[part]),
        actions=actions,
    )


async def _save_generated_images(
    ctx: InvocationContext, agent: LlmAgent, content: types.Content
) -> Event | None:
    """Saves images the model generated while running code as artifacts (each part then
    names its artifact); an event with the artifact delta, or None without images."""
    actions = EventActions()
    for part in content.parts or []:
        blob = part.inline_data
        if blob is None or not (blob.mime_type or "").startswith("image/") or blob.data is None:
            continue
        if ctx.artifact_service is None:
            raise ValueError(
                f"Agent {agent.name!r}: the model generated an image but the runner has no "
                "artifact service to save it."
            )
        name = blob.display_name
        if not name:
            extension = (blob.mime_type or "image/png").split("/")[-1]
            name = f"{time.strftime('%Y%m%d_%H%M%S')}.{extension}"
        actions.artifact_delta[name] = await ctx.artifact_service.save_artifact(
            app_name=ctx.app_name,
            user_id=ctx.user_id,
            session_id=ctx.session.id,
            filename=name,
            artifact=types.Part.from_bytes(data=blob.data, mime_type=blob.mime_type or ""),
        )
        part.inline_data = None
        part.text = f"Saved as artifact: {name}. "
    if not actions.artifact_delta:
        return None
    return Event(
        invocation_id=ctx.invocation_id, author=agent.name, branch=ctx.branch, actions=actions
    )


request_processor = CodeExecutionRequestProcessor()
response_processor = CodeExecutionResponseProcessor()
