"""BaseLlmFlow: the step loop that executes an LlmAgent's configuration."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import AsyncGenerator, Callable
from contextlib import aclosing
from typing import TYPE_CHECKING, Any, TypeAlias

from pyadk import types
from pyadk.agents import pause
from pyadk.agents.budget import count_tokens
from pyadk.agents.callback_context import CallbackContext
from pyadk.agents.llm_agent import LlmAgent
from pyadk.agents.readonly_context import ReadonlyContext
from pyadk.agents.run_config import StreamingMode
from pyadk.errors import ModelTimeoutError
from pyadk.events.event import Event
from pyadk.events.event_actions import EventActions
from pyadk.flows import functions, tool_confirmations
from pyadk.flows.client_requests import calls_event, has_client_answers
from pyadk.flows.processors.base import SilentRequestProcessor, SyncRequestProcessor
from pyadk.flows.toolset_auth import auth_toolsets, toolset_auth_request
from pyadk.models.llm_request import LlmRequest
from pyadk.models.llm_response import LlmResponse
from pyadk.telemetry import get_tracer
from pyadk.telemetry.spans import trace_llm_call
from pyadk.tools import _paused_calls as paused_calls
from pyadk.tools.base_tool import BaseTool
from pyadk.tools.base_toolset import BaseToolset
from pyadk.tools.set_model_response_tool import SET_MODEL_RESPONSE
from pyadk.tools.tool_context import ToolContext
from pyadk.utils.callbacks import has_listener, plugins_then_callbacks
from pyadk.utils.fast_models import assembled, construct, copy_model, updated
from pyadk.utils.ids import new_uuid4

logger = logging.getLogger(__name__)

if TYPE_CHECKING:
    from pyadk.agents.base_agent import BaseAgent
    from pyadk.agents.invocation_context import InvocationContext
    from pyadk.events.tool_confirmation import ToolConfirmation
    from pyadk.flows.processors.base import BaseLlmRequestProcessor, BaseLlmResponseProcessor


_ProcessNow: TypeAlias = "Callable[[InvocationContext, LlmRequest], None]"
_SilentStep: TypeAlias = "tuple[SilentRequestProcessor, _ProcessNow | None]"
"""A silent request processor, and its ``process_now`` when the flow may call it."""


def _sync_step(processor: SilentRequestProcessor) -> _ProcessNow | None:
    """``processor.process_now`` when awaiting its ``process`` would only call that
    (a subclass may override ``process``), else None."""
    if (
        isinstance(processor, SyncRequestProcessor)
        and type(processor).process is SyncRequestProcessor.process
    ):
        return processor.process_now
    return None


class BaseLlmFlow:
    """Runs steps until the agent gives a final response.

    A step: request processors build the LlmRequest (in order), tools shape it, the
    model is called (wrapped in model callbacks), response processors run, the response
    event is yielded, its function calls are executed and a transfer is followed.
    """

    def __init__(self) -> None:
        self.request_processors: list[BaseLlmRequestProcessor] = []
        self.response_processors: list[BaseLlmResponseProcessor] = []
        self._silent_checked: tuple[BaseLlmRequestProcessor, ...] | None = None
        self._silent_steps: tuple[_SilentStep, ...] | None = None

    def _silent_plan(self) -> tuple[_SilentStep, ...] | None:
        """How to run the request processors when none yields events (None when one
        may): each processor's ``process_now`` to call, or None to await its
        ``process``. Made again after the list changes."""
        processors = tuple(self.request_processors)
        if processors != self._silent_checked:
            silent = [p for p in processors if isinstance(p, SilentRequestProcessor)]
            self._silent_steps = (
                tuple((p, _sync_step(p)) for p in silent)
                if len(silent) == len(processors)
                else None
            )
            self._silent_checked = processors
        return self._silent_steps

    async def run_async(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        """Runs steps until a final response (or the invocation ends); the agent's final
        answer is stored under its ``output_key`` before it is yielded.

        A step: the request is built, the model called, each response yielded as an
        event, its function calls executed (their response yielded) and a transfer
        followed. The steps run inline (not as a generator of their own: one layer less
        for every event to pass through); every event goes through :func:`_seen` first.
        """
        agent = ctx.agent
        output_agent = agent if isinstance(agent, LlmAgent) and agent.output_key else None
        counters = ctx._counters
        if counters.resume_targets:
            handoff = pause.resume_handoff(ctx)
            if handoff is not None:  # a workflow resumes at an agent below this one
                async with aclosing(handoff.run_async(ctx)) as events:
                    async for event in events:
                        yield event
                return
        if counters.recovering:  # after an interruption
            if agent.name in counters.resume_done:  # its run had finished
                counters.resume_done.discard(agent.name)
                return
            call_event = counters.interrupted_calls.pop(agent.name, None)
            last: Event | None = None
            if call_event is not None:  # calls that got no result
                async with aclosing(self._recover_calls(ctx, call_event)) as events:
                    async for last in events:
                        yield _seen(last, output_agent)
            if last is not None:
                if last.long_running_tool_ids:
                    pause.mark_waiting(ctx)  # held for approval
                    return
                if last.actions.transfer_to_agent:
                    target = _transfer_target(ctx, last.actions.transfer_to_agent)
                    async with aclosing(target.run_async(ctx)) as events:
                        async for nested in events:
                            yield _seen(nested, output_agent)
                    return
                if last.is_final_response():
                    return
        if agent.name not in counters.answers_handled and _has_answers(ctx.user_content):
            answered = _answered_calls(ctx) if has_client_answers(ctx.user_content) else None
            answered = _with_paused_calls(ctx, answered)
            if answered is not None:  # answers to this agent's requests: run those calls
                counters.answers_handled.add(agent.name)
                call_event, confirmations = answered
                if not call_event.get_function_calls():
                    return  # answers already used (a resent message): nothing to do
                async with aclosing(
                    self._resume_answered(ctx, call_event, confirmations)
                ) as events:
                    async for event in events:
                        yield _seen(event, output_agent)
                        if event.long_running_tool_ids:
                            pause.mark_waiting(ctx)
                            return  # a call asked the client again
                        if event.is_final_response():
                            return  # the result needs no model summary
                if agent.name in counters.waiting or paused_calls.siblings_waiting(
                    ctx, call_event
                ):  # a call still waits for the client
                    pause.mark_waiting(ctx)
                    return
        toolsets = auth_toolsets(agent) if isinstance(agent, LlmAgent) and agent.tools else None
        while True:
            last_event: Event | None = None
            if toolsets:  # credentials the toolsets need before their tools are listed
                request = await toolset_auth_request(ctx, toolsets)
                if request is not None:
                    yield _seen(request, output_agent)
                    pause.mark_waiting(ctx)
                    return
            if counters.compacting_app is not None:  # the token threshold, inside the turn
                await _compact_over_threshold(ctx, counters.compacting_app)
            llm_request = construct(LlmRequest)
            plan = self._silent_plan()
            if plan is not None:
                await self._preprocess_silently(ctx, llm_request, plan)
            else:
                async with aclosing(self._preprocess_async(ctx, llm_request)) as events:
                    async for event in events:
                        yield (last_event := _seen(event, output_agent))
            if ctx.end_invocation:
                return
            response_event = construct(
                Event, invocation_id=ctx.invocation_id, author=agent.name, branch=ctx.branch
            )
            chunk_actions = _ChunkActions()
            responses = self._plain_model_call(ctx, llm_request)
            if responses is None:
                responses = self._call_llm_async(ctx, llm_request, response_event)
            tracer = get_tracer()
            if tracer is not None:
                responses = trace_llm_call(responses, tracer, ctx, llm_request, response_event)
            budget = ctx.run_config.budget
            try:
                async for llm_response in responses:
                    usage = llm_response.usage_metadata
                    if budget is not None and usage is not None and not llm_response.partial:
                        count_tokens(ctx, usage)
                    if self.response_processors:
                        async with aclosing(self._postprocess_async(ctx, llm_response)) as events:
                            async for event in events:
                                yield (last_event := _seen(event, output_agent))
                    if (
                        llm_response.content is None
                        and not llm_response.error_code
                        and not llm_response.interrupted
                    ):
                        continue
                    event = _finalize_event(
                        llm_response, response_event, llm_request, chunk_actions
                    )
                    response_event.__dict__["id"] = new_uuid4()  # the next chunk's id
                    yield (last_event := _seen(event, output_agent))
                    if event.partial or not event.get_function_calls():
                        continue
                    # The calls' responses, then a structured answer or the events of the
                    # agent they transfer to.
                    tools = llm_request.tools_dict
                    if functions.streams_progress(event, tools):  # progress while they run
                        response = None
                        async with aclosing(
                            functions.stream_function_calls(ctx, event, tools)
                        ) as results:
                            async for item in results:
                                if item.partial:
                                    yield item  # never stored: not the step's last event
                                else:
                                    response = item
                    else:
                        response = await functions.handle_function_calls_async(ctx, event, tools)
                    paused = paused_calls.take(ctx)
                    if response is not None:
                        yield (last_event := _seen(response, output_agent))
                    if paused:  # calls whose node waits for the client: the step ends
                        if response is not None:
                            paused = _client_requests(ctx, event, response) + paused
                        for request in paused:
                            yield (last_event := _seen(request, output_agent))
                        continue
                    if response is None:
                        continue
                    actions = response.actions
                    if actions.requested_tool_confirmations or actions.requested_auth_configs:
                        requests = _client_requests(ctx, event, response)
                        for request in requests:  # the step ends, waiting for the client
                            yield (last_event := _seen(request, output_agent))
                        if requests:
                            continue
                    structured = _structured_answer(ctx, response)
                    if structured is not None:
                        yield (last_event := _seen(structured, output_agent))
                    elif response.actions.transfer_to_agent:
                        target = _transfer_target(ctx, response.actions.transfer_to_agent)
                        async with aclosing(target.run_async(ctx)) as events:
                            async for nested in events:
                                yield (last_event := _seen(nested, output_agent))
            finally:
                await responses.aclose()
            if (
                last_event is None
                or last_event.is_final_response()
                or last_event.is_outcome_event()  # a transferred-to agent finished
                or ctx.end_invocation
            ):
                if last_event is not None and last_event.long_running_tool_ids:
                    pause.mark_waiting(ctx)  # a call the client must answer
                break
            if last_event.partial:
                raise ValueError("Last event of a step should not be partial.")

    async def _recover_calls(
        self, ctx: InvocationContext, call_event: Event
    ) -> AsyncGenerator[Event, None]:
        """The results of this agent's calls cut off by an interruption (see
        :mod:`pyadk.flows.interrupted_calls`)."""
        from pyadk.flows.interrupted_calls import resume_calls

        agent = ctx.agent
        assert isinstance(agent, LlmAgent)
        tools = {tool.name: tool for tool in await agent.canonical_tools(ReadonlyContext(ctx))}
        async with aclosing(resume_calls(ctx, call_event, tools)) as events:
            async for event in events:
                yield event

    async def _resume_answered(
        self,
        ctx: InvocationContext,
        call_event: Event,
        confirmations: dict[str, ToolConfirmation],
    ) -> AsyncGenerator[Event, None]:
        """Runs the calls the client's answers let go on (an approved one runs, a
        rejected one is refused, one that got its credential runs again); yields their
        results, and new requests if a call asks the client again."""
        agent = ctx.agent
        assert isinstance(agent, LlmAgent)
        tools = {tool.name: tool for tool in await agent.canonical_tools(ReadonlyContext(ctx))}
        response: Event | None = None
        if functions.streams_progress(call_event, tools):
            async with aclosing(
                functions.stream_function_calls(ctx, call_event, tools, confirmations)
            ) as results:
                async for item in results:
                    if item.partial:
                        yield item
                    else:
                        response = item
        else:
            response = await functions.handle_function_calls_async(
                ctx, call_event, tools, confirmations
            )
        paused = paused_calls.take(ctx)
        if response is not None:
            yield response
            for request in _client_requests(ctx, call_event, response):
                yield request
        if paused is not None:  # calls whose node waits for the client (again)
            for request in paused:
                yield request
            if not paused:  # still waiting on requests asked before
                pause.mark_waiting(ctx)

    async def _preprocess_async(
        self, ctx: InvocationContext, llm_request: LlmRequest
    ) -> AsyncGenerator[Event, None]:
        """Runs the request processors in order (yielding their events), then the tools'
        request hooks."""
        for processor in self.request_processors:
            if isinstance(processor, SilentRequestProcessor):
                await processor.process(ctx, llm_request)
                continue
            async with aclosing(processor.run_async(ctx, llm_request)) as events:
                async for event in events:
                    yield event
        await self._process_tools(ctx, llm_request)

    async def _preprocess_silently(
        self,
        ctx: InvocationContext,
        llm_request: LlmRequest,
        plan: tuple[_SilentStep, ...],
    ) -> None:
        """:meth:`_preprocess_async` when no processor yields events (``plan``: see
        :meth:`_silent_plan`)."""
        for processor, now in plan:
            if now is not None:
                now(ctx, llm_request)
            else:
                await processor.process(ctx, llm_request)
        agent = ctx.agent
        if isinstance(agent, LlmAgent) and agent.tools:  # else nothing to await
            await self._process_tools(ctx, llm_request)

    async def _process_tools(self, ctx: InvocationContext, llm_request: LlmRequest) -> None:
        agent = ctx.agent
        if not isinstance(agent, LlmAgent) or not agent.tools:
            return
        tool_context: ToolContext | None = None
        tools = await agent.canonical_tools(ReadonlyContext(ctx))
        if agent._cache.tools is None:  # the agent has toolsets (only their tools vary)
            for toolset in _toolsets_with_request_hooks(agent):
                if tool_context is None:
                    tool_context = ToolContext(ctx)
                await toolset.process_llm_request(
                    tool_context=tool_context, llm_request=llm_request
                )
        for tool in tools:
            if type(tool).process_llm_request is BaseTool.process_llm_request:
                llm_request.append_tools([tool])  # what it would do, without a context
                continue
            if tool_context is None:
                tool_context = ToolContext(ctx)
            await tool.process_llm_request(tool_context=tool_context, llm_request=llm_request)

    @staticmethod
    def _plain_model_call(
        ctx: InvocationContext, llm_request: LlmRequest
    ) -> AsyncGenerator[LlmResponse, None] | None:
        """The model's own response stream when :meth:`_call_llm_async` would only pass
        it through (no model callbacks or plugins, no retry, no timeout); else None."""
        agent = ctx.agent
        assert isinstance(agent, LlmAgent)
        plugins = ctx.plugin_manager
        if (
            agent.model_retry is not None
            or agent.model_timeout is not None
            or has_listener(plugins, "before_model_callback", agent.before_model_callback)
            or has_listener(plugins, "after_model_callback", agent.after_model_callback)
            or has_listener(plugins, "on_model_error_callback", agent.on_model_error_callback)
        ):
            return None
        stream = ctx.run_config.streaming_mode == StreamingMode.SSE
        ctx.increment_llm_call_count()
        responses = agent.canonical_model.generate_content_async(llm_request, stream=stream)
        return _with_deadline(responses, None, agent.name)

    async def _call_llm_async(
        self, ctx: InvocationContext, llm_request: LlmRequest, response_event: Event
    ) -> AsyncGenerator[LlmResponse, None]:
        agent = ctx.agent
        assert isinstance(agent, LlmAgent)
        callback_context = _LazyCallbackContext(ctx, response_event)
        if has_listener(ctx.plugin_manager, "before_model_callback", agent.before_model_callback):
            # Callbacks may edit the request: give them history they cannot corrupt.
            llm_request.contents = [copy_model(c) for c in llm_request.contents]
            response = await plugins_then_callbacks(
                ctx.plugin_manager,
                "before_model_callback",
                {"callback_context": callback_context.get(), "llm_request": llm_request},
                agent.before_model_callback,
            )
            if response is not None:
                yield LlmResponse.model_validate(response)
                return
        llm = agent.canonical_model
        stream = ctx.run_config.streaming_mode == StreamingMode.SSE
        retry = agent.model_retry
        attempt = 1
        while True:
            ctx.increment_llm_call_count()
            produced = False
            try:
                responses = _with_deadline(
                    llm.generate_content_async(llm_request, stream=stream),
                    agent.model_timeout,
                    agent.name,
                )
                after = has_listener(
                    ctx.plugin_manager, "after_model_callback", agent.after_model_callback
                )
                try:
                    async for llm_response in responses:
                        produced = True
                        if after:
                            llm_response = await self._after_model(
                                ctx, callback_context, llm_response
                            )
                        yield llm_response
                finally:
                    await responses.aclose()
                return
            except Exception as error:
                if (
                    retry is not None
                    and not produced
                    and attempt < retry.attempts
                    and retry.should_retry(error)
                ):
                    logger.info("Model call of %r failed (%s); retrying", agent.name, error)
                    await asyncio.sleep(retry.delay(attempt, error))
                    attempt += 1
                    continue
                recovered = await self._on_model_error(ctx, callback_context, llm_request, error)
                if recovered is None:
                    raise
                yield await self._after_model(ctx, callback_context, recovered)
                return

    async def _after_model(
        self, ctx: InvocationContext, callback_context: _LazyCallbackContext, response: LlmResponse
    ) -> LlmResponse:
        agent = ctx.agent
        assert isinstance(agent, LlmAgent)
        if not has_listener(ctx.plugin_manager, "after_model_callback", agent.after_model_callback):
            return response
        altered = await plugins_then_callbacks(
            ctx.plugin_manager,
            "after_model_callback",
            {"callback_context": callback_context.get(), "llm_response": response},
            agent.after_model_callback,
        )
        return response if altered is None else LlmResponse.model_validate(altered)

    async def _on_model_error(
        self,
        ctx: InvocationContext,
        callback_context: _LazyCallbackContext,
        llm_request: LlmRequest,
        error: Exception,
    ) -> LlmResponse | None:
        agent = ctx.agent
        assert isinstance(agent, LlmAgent)
        recovered = await plugins_then_callbacks(
            ctx.plugin_manager,
            "on_model_error_callback",
            {
                "callback_context": callback_context.get(),
                "llm_request": llm_request,
                "error": error,
            },
            agent.on_model_error_callback,
        )
        return None if recovered is None else LlmResponse.model_validate(recovered)

    async def _postprocess_async(
        self, ctx: InvocationContext, llm_response: LlmResponse
    ) -> AsyncGenerator[Event, None]:
        """Runs the response processors in order, yielding their events."""
        for processor in self.response_processors:
            async with aclosing(processor.run_async(ctx, llm_response)) as events:
                async for event in events:
                    yield event


def _seen(event: Event, output_agent: LlmAgent | None) -> Event:
    """``event``, its final answer stored under ``output_agent``'s ``output_key`` first."""
    if output_agent is not None:
        output_agent._maybe_save_output_to_state(event)
    return event


def _finalize_event(
    llm_response: LlmResponse,
    response_event: Event,
    llm_request: LlmRequest,
    chunk_actions: _ChunkActions,
) -> Event:
    """The event for one model response, built on the step's event template."""
    # A partial chunk gets a snapshot: later changes to the step's actions (e.g. the
    # output_key delta of the aggregated answer) must not show up on chunks already yielded.
    actions = response_event.actions
    if llm_response.partial:
        actions = chunk_actions.snapshot(actions)
    if type(llm_response) is LlmResponse:
        # Every LlmResponse field is an Event field the template leaves unset (None): the
        # response's values go in with one dict update, as updated() would put them.
        data = response_event.__dict__.copy()
        data.update(llm_response.__dict__)
        data["actions"] = actions
        data["timestamp"] = time.time()
        fields_set = response_event.__pydantic_fields_set__ | llm_response.__pydantic_fields_set__
        fields_set |= _FINALIZED
        event = assembled(Event, data, fields_set)
    else:
        event = updated(
            response_event,
            llm_response,
            {"actions": actions, "id": response_event.id, "timestamp": time.time()},
        )
    if event.content is not None and not event.partial and event.get_function_calls():
        functions.populate_client_function_call_ids(event)
        ids = functions.long_running_call_ids(event, llm_request.tools_dict)
        if ids:
            event.long_running_tool_ids = ids
    return event


_FINALIZED = frozenset({"actions", "id", "timestamp"})
"""Fields every response event sets (besides the template's and the response's)."""


def _toolsets_with_request_hooks(agent: LlmAgent) -> list[BaseToolset]:
    """The agent's toolsets that shape model requests themselves, in order."""
    return [
        item
        for item in agent.tools
        if isinstance(item, BaseToolset)
        and type(item).process_llm_request is not BaseToolset.process_llm_request
    ]


def _has_answers(content: types.Content | None) -> bool:
    """Whether a user's message holds function responses (answers to requests)."""
    if content is None or not content.parts:
        return False
    return any(part.function_response is not None for part in content.parts)


def _with_paused_calls(
    ctx: InvocationContext, answered: tuple[Event, dict[str, ToolConfirmation]] | None
) -> tuple[Event, dict[str, ToolConfirmation]] | None:
    """``answered`` plus this agent's calls (NodeTools) that paused on requests the
    user's message answers: they run again (see :mod:`pyadk.tools._paused_calls`)."""
    resumed = paused_calls.resumed_calls(ctx)
    if resumed is None:
        return answered
    if answered is None:
        return calls_event(ctx.invocation_id, ctx.agent.name, ctx.branch, resumed), {}
    call_event, confirmations = answered
    calls = call_event.get_function_calls()
    taken = {call.id for call in calls}
    calls += [call for call in resumed if call.id not in taken]
    return calls_event(ctx.invocation_id, ctx.agent.name, ctx.branch, calls), confirmations


def _answered_calls(ctx: InvocationContext) -> tuple[Event, dict[str, ToolConfirmation]] | None:
    """The calls of this agent that the user's message lets go on (approved, rejected,
    or given their credential), as one event, with the approvals by call id; None when
    no answer in the message is to this agent."""
    from pyadk.flows import tool_auth  # rare: credential answers

    message = ctx.user_content
    approved = None
    answered = tool_confirmations.answers(message)
    if answered:
        approved = tool_confirmations.approved_calls(ctx, answered)
    credentials = tool_auth.answers(message)
    resumed = tool_auth.resumed_calls(ctx, credentials) if credentials else None
    if resumed is None:
        return approved
    waiting = resumed.get_function_calls()
    # Calls approved before they asked for a credential keep their approval.
    earlier = tool_confirmations.earlier_answers(
        ctx.session.events, ctx.agent.name, {call.id for call in waiting if call.id}
    )
    if approved is None:
        return resumed, earlier
    call_event, confirmations = approved
    calls = call_event.get_function_calls()
    taken = {call.id for call in calls}
    calls += [call for call in waiting if call.id not in taken]
    return calls_event(ctx.invocation_id, ctx.agent.name, ctx.branch, calls), {
        **earlier,
        **confirmations,
    }


async def _compact_over_threshold(ctx: InvocationContext, app: Any) -> None:
    """Summarises older events before a model call when the latest prompt reached the
    app's token threshold (a failing summariser leaves the history as it is)."""
    from pyadk.apps.compaction import compact_over_threshold
    from pyadk.sessions.errors import StaleSessionError

    try:
        await compact_over_threshold(app, ctx.session, ctx.session_service)
    except StaleSessionError:
        logger.info("Session %s changed; in-turn compaction dropped.", ctx.session.id)


def _client_requests(ctx: InvocationContext, call_event: Event, response: Event) -> list[Event]:
    """The events asking the client for what ``response``'s calls requested: approvals,
    then credentials."""
    requests = []
    if response.actions.requested_tool_confirmations:
        request = tool_confirmations.request_event(ctx, call_event, response)
        if request is not None:
            requests.append(request)
    if response.actions.requested_auth_configs:
        from pyadk.flows import tool_auth

        request = tool_auth.request_event(ctx, response.actions.requested_auth_configs)
        if request is not None:
            requests.append(request)
    return requests


def _transfer_target(ctx: InvocationContext, target_name: str) -> BaseAgent:
    """The agent a ``transfer_to_agent`` call names (ValueError if there is none)."""
    target = ctx.agent.root_agent.find_agent(target_name)
    if target is None:
        raise ValueError(f"Agent {target_name!r} not found in the agent tree.")
    return target


def _structured_answer(ctx: InvocationContext, response: Event) -> Event | None:
    """The final answer event when the model answered through ``set_model_response``."""
    for fr in response.get_function_responses():
        if fr.name == SET_MODEL_RESPONSE and fr.response is not None and "error" not in fr.response:
            return Event(
                invocation_id=ctx.invocation_id,
                author=ctx.agent.name,
                branch=ctx.branch,
                content=types.Content(
                    role="model", parts=[types.Part(text=json.dumps(fr.response))]
                ),
            )
    return None


def _with_deadline(
    responses: AsyncGenerator[LlmResponse, None], seconds: float | None, agent_name: str
) -> AsyncGenerator[LlmResponse, None]:
    """``responses``, raising ModelTimeoutError when the whole call exceeds ``seconds``
    (``responses`` itself when there is no limit and it is an async generator)."""
    if seconds is None and hasattr(responses, "aclose"):
        return responses
    return _deadline_responses(responses, seconds, agent_name)


async def _deadline_responses(
    responses: AsyncGenerator[LlmResponse, None], seconds: float | None, agent_name: str
) -> AsyncGenerator[LlmResponse, None]:
    try:
        if seconds is None:  # a model that returned an async iterator, not a generator
            async for response in responses:
                yield response
            return
        deadline = asyncio.get_running_loop().time() + seconds
        while True:
            try:
                async with asyncio.timeout_at(deadline):
                    response = await anext(responses)
            except StopAsyncIteration:
                return
            except TimeoutError:
                raise ModelTimeoutError(
                    f"Model call of agent {agent_name!r} timed out after {seconds:g} s."
                ) from None
            yield response
    finally:
        close = getattr(responses, "aclose", None)
        if close is not None:
            await close()


class _LazyCallbackContext:
    """The model callbacks' CallbackContext, built only when a callback runs."""

    __slots__ = ("_built", "_ctx", "_event")

    def __init__(self, ctx: InvocationContext, response_event: Event) -> None:
        self._ctx = ctx
        self._event = response_event
        self._built: CallbackContext | None = None

    def get(self) -> CallbackContext:
        if self._built is None:
            self._built = CallbackContext(self._ctx, event_actions=self._event.actions)
        return self._built


class _ChunkActions:
    """The actions of a response's partial chunks: a snapshot, so that later changes to
    the step's actions (e.g. the output_key delta of the aggregated answer) do not show
    up on chunks already yielded.

    A copy when the step's actions hold anything; else one empty EventActions shared by
    the chunks, replaced by a new one once something changed it. Partial events are
    never stored and their actions never applied."""

    __slots__ = ("_defaults", "_empty")

    def __init__(self) -> None:
        self._empty: EventActions | None = None
        self._defaults: dict[str, Any] | None = None

    def snapshot(self, actions: EventActions) -> EventActions:
        defaults = self._defaults
        if defaults is None:  # its own {} values: never those of an object handed out
            defaults = self._defaults = construct(EventActions).__dict__
            self._empty = construct(EventActions)
        # Untouched: no field set, every value its default (one dict comparison).
        if actions.__pydantic_fields_set__ or actions.__dict__ != defaults:
            return copy_model(actions)
        empty = self._empty
        assert empty is not None
        if empty.__pydantic_fields_set__ or empty.__dict__ != defaults:
            empty = self._empty = construct(EventActions)
        return empty
