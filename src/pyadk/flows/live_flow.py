"""The live (bidirectional) flow of an LlmAgent: one model connection, two directions.

The request is built as for a step of ``run_async``; the model connection gets the
history, then a send task forwards the client's LiveRequestQueue to the model while
the model's responses become events: text (partial and whole), transcriptions,
``turn_complete`` and ``interrupted`` signals, function calls. Function calls run
(concurrently, with their callbacks) and their responses go back to the model;
``transfer_to_agent`` closes the connection and runs the target agent live;
``task_completed`` (offered to the steps of a live SequentialAgent) ends the agent.

Long sessions: with ``RunConfig.session_resumption`` set, the latest handle the server
sends (``live_session_resumption_update``) is kept on the invocation context
(``live_session_resumption_handle``); when the server announces it will close
(``go_away``) or closes the connection, the flow reconnects with that handle (no
history resent: the server holds it) and goes on reading the same LiveRequestQueue.
Once a ``go_away`` is read nothing more is sent to the old connection: the request the
send task holds and those queued meanwhile go to the new one, in order.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncGenerator
from contextlib import AsyncExitStack, aclosing
from typing import TYPE_CHECKING, Any

from pyadk import types
from pyadk.agents.live_request_queue import LiveRequest, LiveRequestQueue
from pyadk.agents.llm_agent import LlmAgent
from pyadk.events.event import Event
from pyadk.events.event_actions import EventActions
from pyadk.flows import functions, live_streaming_tools
from pyadk.flows.live_screening import LiveScreening
from pyadk.models.base_llm_connection import LiveConnectionClosedError
from pyadk.models.llm_request import LlmRequest
from pyadk.models.llm_response import LlmResponse
from pyadk.telemetry import get_tracer
from pyadk.utils.fast_models import construct, updated

if TYPE_CHECKING:
    from pyadk.agents.invocation_context import InvocationContext
    from pyadk.flows.base_llm_flow import BaseLlmFlow
    from pyadk.models.base_llm_connection import BaseLlmConnection

logger = logging.getLogger(__name__)

DEFAULT_MAX_RECONNECT_ATTEMPTS = 5
"""Reconnections in a row, without a response in between, before a live run fails."""

TASK_COMPLETED = "task_completed"
"""The tool a step of a live SequentialAgent calls to hand over to the next step."""

_TASK_COMPLETED_INSTRUCTION = (
    "When you have finished the user's request as your description says, call the "
    f"{TASK_COMPLETED} function so that the next agent takes over. Say nothing else when "
    "you call it."
)


def queue_ended(queue: LiveRequestQueue | None) -> bool:
    """True once a live run took the queue's ``close`` request: nothing more comes."""
    return queue is not None and queue._ended


async def run_live_flow(flow: BaseLlmFlow, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
    """Runs ``ctx.agent`` (an LlmAgent) live until the client closes the queue, the
    model connection ends, the agent transfers, or it signals ``task_completed``."""
    agent = ctx.agent
    assert isinstance(agent, LlmAgent)
    queue = ctx.live_request_queue
    if queue is None:
        raise ValueError(
            f"Agent {agent.name!r} cannot run live without a LiveRequestQueue: start live "
            "runs with Runner.run_live(live_request_queue=...)."
        )
    if queue._ended:  # the client closed the run before this agent's turn
        for event in await _saved_audio(ctx):
            yield event
        return
    llm_request = construct(LlmRequest, live_connect_config=types.LiveConnectConfig())
    async with aclosing(flow._preprocess_async(ctx, llm_request)) as events:
        async for event in events:
            yield event
    if ctx.end_invocation:
        for event in await _saved_audio(ctx):
            yield event
        return
    _add_transcriptions_to_history(ctx, agent, llm_request)
    if agent.output_schema is not None:
        logger.warning(
            "Agent %r sets output_schema, which live mode ignores (a live session has no "
            "final answer to structure).",
            agent.name,
        )
    if _in_live_sequence(agent):
        _offer_task_completed(llm_request)
    live_streaming_tools.offer_stop_streaming(llm_request)
    llm = agent.canonical_model
    llm_request.model = llm.model
    _set_live_connect_config(llm_request, ctx)
    _start_resumption(ctx)
    attempts = 0
    unsent: LiveRequest | None = None
    while True:
        handle = ctx.live_session_resumption_handle
        async with AsyncExitStack() as stack:
            try:
                connection = await stack.enter_async_context(
                    llm.connect(_connect_request(llm_request, handle))
                )
            except Exception as error:
                if attempts == 0 or not _can_resume(ctx):
                    raise
                attempts = _count_attempt(agent, attempts, error)
                continue
            if llm_request.contents and not handle:
                await _send_history(ctx, connection, llm_request.contents)
            session = _LiveSession(flow, ctx, connection, llm_request, queue, unsent)
            async with aclosing(session.run()) as events:
                async for event in events:
                    yield event
        if session.lost is None or session.client_closed:
            break
        attempts = 1 if session.received else _count_attempt(agent, attempts, session.lost)
        unsent = session.unsent
        logger.info(
            "Live session of agent %r resumes on a new connection (%s).",
            agent.name,
            session.lost,
        )
    transfer = session.transfer_target
    if transfer is None:  # the session ended: the audio no control event saved
        for event in await _saved_audio(ctx):
            yield event
    else:
        target = agent.root_agent.find_agent(transfer)
        if target is None:
            raise ValueError(f"Agent {transfer!r} not found in the agent tree.")
        await live_streaming_tools.stop_all_streaming_calls(ctx)
        async with aclosing(target.run_live(ctx)) as events:
            async for event in events:
                yield event


class _LiveSession:
    """One agent's model connection: the send task and the received events."""

    def __init__(
        self,
        flow: BaseLlmFlow,
        ctx: InvocationContext,
        connection: BaseLlmConnection,
        llm_request: LlmRequest,
        queue: LiveRequestQueue,
        unsent: LiveRequest | None = None,
    ) -> None:
        self.flow = flow
        self.ctx = ctx
        self.connection = connection
        self.llm_request = llm_request
        self.queue = queue
        self.side_events = live_streaming_tools.side_events(ctx)
        self.screening = LiveScreening.of(ctx, llm_request)
        """The model callbacks screening the session (None: nothing listens)."""
        self.client_closed = False
        self.transfer_target: str | None = None
        self.unsent = unsent
        """The client's request taken from the queue but not yet sent (carried over to
        the next connection when this one is lost)."""
        self.received = False
        """The model sent something on this connection."""
        self.going_away = False
        """The server announced it will close (``go_away``) and the flow resumes: nothing
        more is sent to this connection."""
        self.lost: BaseException | str | None = None
        """Why the connection ended while the session can be resumed (go_away, a server
        close): the flow then reconnects."""

    async def run(self) -> AsyncGenerator[Event, None]:
        """The session's events, in order: received from the model (with the results of
        its function calls) and those of the send side (blocked user content)."""
        sender = asyncio.create_task(self._send_to_model())
        received = self._receive_events()
        next_event: asyncio.Task[Event | None] | None = None
        side_event: asyncio.Task[Event] | None = None
        send_failure: BaseException | None = None
        try:
            while True:
                if next_event is None:
                    next_event = asyncio.create_task(_next_or_none(received))
                if side_event is None:
                    side_event = asyncio.create_task(self.side_events.get())
                waiting: set[asyncio.Future[Any]] = {next_event, side_event}
                if not sender.done():
                    waiting.add(sender)
                done, _ = await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
                if sender in done and not sender.cancelled():
                    failure = sender.exception()
                    if failure is not None:  # e.g. a user message with a function call
                        resuming = self.ctx.run_config.session_resumption is not None
                        if not (resuming and _is_connection_loss(failure)):
                            raise failure
                        # The connection is gone: its receive side ends too, then the
                        # flow resumes (the request not sent goes to the new connection).
                        send_failure = failure
                if side_event in done:
                    blocked = side_event.result()
                    side_event = None
                    yield blocked
                    continue
                if next_event not in done:
                    continue
                event = next_event.result()
                next_event = None
                if event is None:  # the connection ended
                    if send_failure is not None and self.lost is None:
                        raise send_failure
                    return
                yield event
                if await self._after_tool_results(event, sender):
                    return
        finally:
            await _stop_tasks([t for t in (next_event, side_event, sender) if t is not None])
            await received.aclose()

    async def _after_tool_results(self, event: Event, sender: asyncio.Task[None]) -> bool:
        """Acts on the results of function calls: True when the agent's run ends
        (a transfer, ``task_completed``); else sends them back to the model."""
        responses = event.get_function_responses()
        if not responses or event.author != self.ctx.agent.name:
            return False
        if event.actions.transfer_to_agent:
            self.transfer_target = event.actions.transfer_to_agent
            sender.cancel()
            await self.connection.close()
            return True
        if any(response.name == TASK_COMPLETED for response in responses):
            sender.cancel()
            return True
        if not self.client_closed and event.content is not None:
            await self.connection.send_content(event.content)
            live_streaming_tools.calls_answered(self.ctx, responses)
        return False

    async def _send_to_model(self) -> None:
        """Forwards the client's requests to the model until ``close``; after a
        ``go_away`` it stops, the request it holds kept in ``unsent`` (the next ones
        stay queued) for the resumed connection."""
        queue = self.queue
        while True:
            request = self.unsent
            if request is None:
                request = self.unsent = await queue.get()
                live_streaming_tools.copy_to_input_streams(self.ctx, request)
                if request.blob is not None and self.ctx.run_config.save_live_blob:
                    _cache_user_blob(self.ctx, request)  # once, even if sent again
                await self._store_user_request(request)
            if self.going_away and not request.close:
                return
            await self._send_request(request)
            self.unsent = None
            if request.close:
                return

    async def _send_request(self, request: LiveRequest) -> None:
        """Sends one client request to the model (``close`` closes the connection)."""
        connection = self.connection
        if request.close:
            self.queue._ended = True
            self.client_closed = True
            await connection.close()
            return
        if request.activity_start is not None:
            await connection.send_realtime(request.activity_start)
        elif request.activity_end is not None:
            await connection.send_realtime(request.activity_end)
        elif request.audio_stream_end:
            await connection.send_realtime(types.LiveClientRealtimeInput(audio_stream_end=True))
        elif request.blob is not None:
            await connection.send_realtime(request.blob)
        content = request.content
        if content is None:
            return
        if content.parts and any(part.function_call for part in content.parts):
            raise ValueError("User message cannot contain function calls.")
        screening = self.screening
        if screening is not None and not _only_function_responses(content):
            blocked = await screening.screen_user_content(content)  # live callback site 1
            if blocked is not None:
                self.side_events.put_nowait(blocked)
                return
        await connection._send_content(content, partial=request.partial)

    async def _store_user_request(self, request: LiveRequest) -> None:
        """Stores the user's whole content (and the request's state delta) in the
        session; function responses and partial content are not stored."""
        ctx = self.ctx
        content = request.content
        stored = (
            content is not None
            and not request.close
            and not request.partial
            and not _has_function_responses(content)
        )
        if not stored and not request.state_delta:
            return
        if stored and content is not None and content.role is None:
            content = content.model_copy(update={"role": "user"})
        event = construct(
            Event,
            invocation_id=ctx.invocation_id,
            author="user",
            content=content if stored else None,
            actions=construct(EventActions, state_delta=dict(request.state_delta or {})),
        )
        await append_live_event(ctx, event)

    async def _receive_events(self) -> AsyncGenerator[Event, None]:
        """The model's responses as events, each call's results after its event,
        until the connection ends (a ``receive()`` that yields nothing)."""
        while True:
            received_any = False
            try:
                async with aclosing(self.connection.receive()) as responses:
                    async for llm_response in responses:
                        received_any = True
                        if llm_response.live_session_resumption_update is not None:
                            self._keep_handle(llm_response.live_session_resumption_update)
                        elif llm_response.go_away is not None:
                            if self._resumable():
                                self.going_away = True  # the sender stops at once
                                self.lost = f"go_away, time left {llm_response.go_away.time_left}"
                                return
                            logger.info("The live server will close: %s", llm_response.go_away)
                        else:
                            self.received = True
                        async with aclosing(self._events_of(llm_response)) as events:
                            async for event in events:
                                yield event
            except LiveConnectionClosedError as error:
                if error.resumable and self._resumable():
                    self.lost = error
                    return
                raise
            if not received_any or self.client_closed:
                # the connection ended (or was closed: nothing more is asked for)
                if self._resumable():
                    self.lost = "the server closed the connection"
                return
            await asyncio.sleep(0)

    def _resumable(self) -> bool:
        """True when a lost connection is resumed on a new one."""
        return not self.client_closed and _can_resume(self.ctx)

    def _keep_handle(self, update: types.LiveServerSessionResumptionUpdate) -> None:
        if update.new_handle:
            self.ctx.live_session_resumption_handle = update.new_handle

    async def _events_of(self, llm_response: LlmResponse) -> AsyncGenerator[Event, None]:
        ctx = self.ctx
        agent = ctx.agent
        assert isinstance(agent, LlmAgent)
        screening = self.screening
        if screening is not None:
            connection = None if self.client_closed else self.connection
            kept = await screening.unmuted_part(llm_response, connection)
            if kept is None:
                return
            llm_response = kept
            blocked = await screening.screen_model_output(llm_response)  # live callback site 2
            if blocked is not None:
                async with aclosing(self._answer(blocked)) as events:
                    async for event in events:
                        yield event
                return
        if self.flow.response_processors:
            async with aclosing(self.flow._postprocess_async(ctx, llm_response)) as events:
                async for event in events:
                    yield event
        if not _carries_something(llm_response):
            return
        content = llm_response.content
        from_user = llm_response.input_transcription is not None or (
            content is not None and content.role == "user"
        )
        event = _event_for(llm_response, _event_template(ctx, "user" if from_user else agent.name))
        if event.content is not None and not event.partial and event.get_function_calls():
            functions.populate_client_function_call_ids(event)
            ids = functions.long_running_call_ids(event, self.llm_request.tools_dict)
            if ids:
                event.long_running_tool_ids = ids
        agent._maybe_save_output_to_state(event)
        if ctx.run_config.save_live_blob:  # its audio kept; saved audio's events first
            from pyadk.flows.live_blob_saver import save_live_blobs

            for saved in await save_live_blobs(ctx, event):
                yield saved
        yield event
        if screening is not None and llm_response.input_transcription is not None:
            # live callback site 3: the user's speech, once transcribed
            blocked = await screening.screen_spoken_input(llm_response)
            if blocked is not None:
                async with aclosing(self._answer(blocked)) as events:
                    async for answer in events:
                        yield answer
                return
        if event.partial or not event.get_function_calls():
            return
        tools = self.llm_request.tools_dict
        if functions.streams_progress(event, tools):  # reports reach the client at once
            async with aclosing(functions.stream_function_calls(ctx, event, tools)) as results:
                async for item in results:
                    yield item  # the progress events are partial: not stored, not sent
            return
        response = await functions.handle_function_calls_async(ctx, event, tools)
        if response is not None:
            yield response

    async def _answer(self, event: Event) -> AsyncGenerator[Event, None]:
        """The answer event of a callback blocking the model (live callback sites 2 and
        3), as a model's answer: its ``output_key`` saved, the turn's audio saved first
        (``save_live_blob``: the event has ``turn_complete``)."""
        ctx = self.ctx
        agent = ctx.agent
        assert isinstance(agent, LlmAgent)
        agent._maybe_save_output_to_state(event)
        if ctx.run_config.save_live_blob:
            from pyadk.flows.live_blob_saver import save_live_blobs

            for saved in await save_live_blobs(ctx, event):
                yield saved
        yield event


async def _saved_audio(ctx: InvocationContext) -> list[Event]:
    """``save_live_blob``: the events of the audio still cached as an agent's live
    session ends, once saved (not on a transfer: the target goes on with the cache)."""
    if not ctx.run_config.save_live_blob:
        return []
    from pyadk.flows.live_blob_saver import save_at_session_end

    return await save_at_session_end(ctx)


async def _send_history(
    ctx: InvocationContext, connection: BaseLlmConnection, contents: list[types.Content]
) -> None:
    """Sends the history to a new connection, in a ``send_data`` span when tracing."""
    tracer = get_tracer()
    if tracer is None:
        await connection.send_history(contents)
        return
    from pyadk.telemetry.live_spans import SendDataSpan

    with SendDataSpan(tracer, ctx, contents):
        await connection.send_history(contents)


def _start_resumption(ctx: InvocationContext) -> None:
    """Sets the handle the agent's first connection resumes: the run config's
    ``session_resumption.handle`` for the invocation's first live session; none for
    later ones (an agent transferred to, the next step of a live sequence)."""
    counters = ctx._counters
    config = ctx.run_config.session_resumption
    first = counters.live_sessions == 0
    counters.live_sessions += 1
    ctx.live_session_resumption_handle = (
        config.handle if first and config is not None and config.handle else None
    )


def _can_resume(ctx: InvocationContext) -> bool:
    return ctx.run_config.session_resumption is not None and bool(
        ctx.live_session_resumption_handle
    )


def _connect_request(llm_request: LlmRequest, handle: str | None) -> LlmRequest:
    """The request of one connection: ``llm_request`` with ``handle`` (None: a new
    session) in its connect config's ``session_resumption``."""
    live = llm_request.live_connect_config
    resumption = live.session_resumption if live is not None else None
    if live is None or resumption is None or resumption.handle == handle:
        return llm_request
    resumption = resumption.model_copy(update={"handle": handle})
    live = live.model_copy(update={"session_resumption": resumption})
    return llm_request.model_copy(update={"live_connect_config": live})


def _cache_user_blob(ctx: InvocationContext, request: LiveRequest) -> None:
    """Keeps the request's blob until saved as an artifact (``save_live_blob``) when
    the request is acted on as a blob (no activity signal before it)."""
    acted_on = request.activity_start is None and request.activity_end is None
    if acted_on and not request.audio_stream_end and request.blob is not None:
        from pyadk.flows.live_blob_saver import cache_user_blob

        cache_user_blob(ctx, request.blob)


def _count_attempt(agent: LlmAgent, attempts: int, error: BaseException | str) -> int:
    """``attempts`` + 1: reconnections since the model last sent something; raises
    ConnectionError past :data:`DEFAULT_MAX_RECONNECT_ATTEMPTS`."""
    attempts += 1
    if attempts <= DEFAULT_MAX_RECONNECT_ATTEMPTS:
        return attempts
    failure = ConnectionError(
        f"The live session of agent {agent.name!r} could not be resumed: "
        f"{DEFAULT_MAX_RECONNECT_ATTEMPTS} reconnect attempts in a row failed "
        f"(last: {error})."
    )
    if isinstance(error, BaseException):
        raise failure from error
    raise failure


def _is_connection_loss(error: BaseException) -> bool:
    """True for the failure of a send on a connection that is gone."""
    return isinstance(error, OSError) or any(
        cls.__name__ == "ConnectionClosed" for cls in type(error).__mro__
    )


async def _stop_tasks(tasks: list[asyncio.Task[Any]]) -> None:
    """Cancels the tasks still running and waits for them; the failure of one that
    ended (already raised, or lost with the connection) is only logged."""
    for task in tasks:
        if task.done():
            if not task.cancelled() and task.exception() is not None:
                logger.debug("Live task failed", exc_info=task.exception())
            continue
        task.cancel()
        try:
            await task
        except asyncio.CancelledError:
            pass
        except Exception:
            logger.debug("Live task failed while stopping", exc_info=True)


async def _next_or_none(events: AsyncGenerator[Event, None]) -> Event | None:
    """The next event of ``events``; None once they ended."""
    try:
        return await anext(events)
    except StopAsyncIteration:
        return None


async def append_live_event(ctx: InvocationContext, event: Event) -> None:
    """Appends ``event`` to the live run's session, one append at a time."""
    lock = ctx._counters.live_append_lock
    if lock is None:
        await ctx.session_service.append_event(ctx.session, event)
        return
    async with lock:
        await ctx.session_service.append_event(ctx.session, event)


def is_live_media_event(event: Event) -> bool:
    """True for an event with inline audio, video or image data (not stored in live
    mode: too large for a session)."""
    content = event.content
    if content is None or not content.parts:
        return False
    for part in content.parts:
        blob = part.inline_data
        mime = blob.mime_type if blob is not None else None
        if mime and mime.lower().startswith(("audio/", "video/", "image/")):
            return True
    return False


def _event_template(ctx: InvocationContext, author: str) -> Event:
    return construct(Event, invocation_id=ctx.invocation_id, author=author, branch=ctx.branch)


def _event_for(llm_response: LlmResponse, template: Event) -> Event:
    """The event of one live response, built on ``template``."""
    return updated(template, llm_response, {"id": Event.new_id(), "timestamp": time.time()})


def _carries_something(response: LlmResponse) -> bool:
    return bool(
        response.content is not None
        or response.error_code
        or response.interrupted
        or response.turn_complete
        or response.input_transcription is not None
        or response.output_transcription is not None
        or response.usage_metadata is not None
        or response.grounding_metadata
        or response.live_session_resumption_update is not None
    )


def _has_function_responses(content: types.Content) -> bool:
    return any(part.function_response for part in content.parts or [])


def _only_function_responses(content: types.Content) -> bool:
    parts = content.parts or []
    return bool(parts) and all(part.function_response for part in parts)


def _add_transcriptions_to_history(
    ctx: InvocationContext, agent: LlmAgent, llm_request: LlmRequest
) -> None:
    """Rebuilds the request's history with the session's finished transcriptions as
    text turns (what was said in audio: the user's as user turns, an agent's as its
    own), as google-adk does; nothing to do in sessions without transcriptions."""
    events = ctx.session.events
    if not any(_transcribed(event) for event in events):
        return
    from pyadk.flows.processors.contents import build_contents

    converted = [_as_transcribed_turn(event) if _transcribed(event) else event for event in events]
    llm_request.contents = build_contents(
        converted,
        agent_name=agent.name,
        branch=ctx.branch,
        current_turn_only=agent.include_contents == "none",
    )


def _transcribed(event: Event) -> bool:
    if event.content is not None:
        return False
    said = event.input_transcription or event.output_transcription
    return said is not None and bool(said.text)


def _as_transcribed_turn(event: Event) -> Event:
    heard = event.input_transcription
    said = heard or event.output_transcription
    assert said is not None and said.text
    content = types.Content(role="user" if heard else "model", parts=[types.Part(text=said.text)])
    return event.model_copy(
        update={"content": content, "input_transcription": None, "output_transcription": None}
    )


def _in_live_sequence(agent: LlmAgent) -> bool:
    from pyadk.agents.sequential_agent import SequentialAgent

    return isinstance(agent.parent_agent, SequentialAgent)


def _offer_task_completed(llm_request: LlmRequest) -> None:
    """Gives a step of a live SequentialAgent the ``task_completed`` tool (unless it has
    one) and the instruction to call it when done."""
    if TASK_COMPLETED in llm_request.tools_dict:
        return
    from pyadk.tools.function_tool import FunctionTool

    llm_request.append_tools([FunctionTool(task_completed)])
    llm_request.append_instructions([_TASK_COMPLETED_INSTRUCTION])


def task_completed() -> str:
    """Signals that the agent has finished the user's request or task."""
    return "Task completion signaled."


def _set_live_connect_config(llm_request: LlmRequest, ctx: InvocationContext) -> None:
    """Fills the request's live connect config from the run config and the request."""
    live = llm_request.live_connect_config
    if live is None:  # a callback dropped it
        live = llm_request.live_connect_config = types.LiveConnectConfig()
    run = ctx.run_config
    config = llm_request.config
    live.response_modalities = run.response_modalities
    live.speech_config = run.speech_config
    live.input_audio_transcription = run.input_audio_transcription
    live.output_audio_transcription = run.output_audio_transcription
    live.realtime_input_config = run.realtime_input_config
    live.explicit_vad_signal = run.explicit_vad_signal
    live.enable_affective_dialog = run.enable_affective_dialog
    live.proactivity = run.proactivity
    live.session_resumption = run.session_resumption
    live.context_window_compression = run.context_window_compression
    live.history_config = run.history_config
    live.translation_config = run.translation_config
    live.system_instruction = config.system_instruction
    live.tools = config.tools
    live.temperature = config.temperature
    live.top_p = config.top_p
    live.top_k = config.top_k
    live.max_output_tokens = config.max_output_tokens
    live.seed = config.seed
    live.thinking_config = config.thinking_config
