"""A2aAgentExecutor: runs a pyadk agent with a Runner for each A2A request.

Wire behaviour (what a client sees on the stream): a new task opens with a
``submitted`` Task holding the request message, then a ``working`` status update
naming the app, user and session; each agent event becomes a ``working`` update with
its parts (function calls and responses as ``adk_type`` data parts). At the end, a
run whose last update was plain work gets its final message as an artifact
(``lastChunk``) and a ``completed`` status; otherwise the closing status is the one the
run reached (``input-required`` for a long-running tool, ``failed`` with the error
text) with its message. An exception in the run ends the task ``failed``.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.types import (
    Artifact,
    Message,
    Role,
    Task,
    TaskArtifactUpdateEvent,
    TaskState,
    TaskStatusUpdateEvent,
)

from pyadk.a2a.converters._from_adk import A2AEvent, status_update
from pyadk.a2a.converters.part_converter import text_part
from pyadk.a2a.converters.request_converter import AgentRunRequest
from pyadk.a2a.converters.utils import _get_adk_metadata_key
from pyadk.a2a.executor.config import A2aAgentExecutorConfig, ExecuteInterceptor
from pyadk.a2a.executor.executor_context import ExecutorContext
from pyadk.a2a.executor.task_result_aggregator import TaskResultAggregator
from pyadk.events import Event
from pyadk.runners import Runner
from pyadk.sessions.session import Session
from pyadk.utils.ids import new_uuid4

logger = logging.getLogger(__name__)

RunnerSource = Runner | Callable[[], "Runner | Awaitable[Runner]"]


@dataclass
class _RunContext:
    """The invocation facts the event converter reads (app, user, session)."""

    app_name: str
    user_id: str
    session: Session


class A2aAgentExecutor(AgentExecutor):
    """An a2a-sdk ``AgentExecutor`` that answers each request by running a pyadk agent.

    ``runner`` is a Runner, or a callable (sync or async) returning one, called on the
    first request. The A2A context id is the pyadk session id, so the turns of one A2A
    context continue one session; the user is the authenticated A2A user, else
    ``A2A_USER_<context id>``.
    """

    def __init__(
        self, *, runner: RunnerSource, config: A2aAgentExecutorConfig | None = None
    ) -> None:
        self._runner_source = runner
        self._runner: Runner | None = runner if isinstance(runner, Runner) else None
        self._config = config or A2aAgentExecutorConfig()

    async def _resolve_runner(self) -> Runner:
        if self._runner is not None:
            return self._runner
        if not callable(self._runner_source):
            raise TypeError(
                "runner must be a Runner or a callable returning one, got "
                f"{type(self._runner_source).__name__}"
            )
        made = self._runner_source()
        runner = await made if inspect.isawaitable(made) else made
        if not isinstance(runner, Runner):
            raise TypeError(f"the runner factory returned {type(runner).__name__}, not a Runner")
        self._runner = runner
        return runner

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        """Marks the task canceled (the run itself is cancelled by the A2A server)."""
        await event_queue.enqueue_event(
            status_update(context.task_id, context.context_id, TaskState.TASK_STATE_CANCELED)
        )

    @property
    def _interceptors(self) -> list[ExecuteInterceptor]:
        return list(self._config.execute_interceptors or [])

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        """Runs the agent on the request's message and publishes the task updates."""
        if context.message is None:
            raise ValueError("An A2A request must carry a message")
        for interceptor in self._interceptors:
            if interceptor.before_agent is not None:
                context = await interceptor.before_agent(context)
        if context.current_task is None:
            task = Task(id=context.task_id or "", context_id=context.context_id or "")
            task.status.state = TaskState.TASK_STATE_SUBMITTED
            task.status.timestamp.GetCurrentTime()
            task.history.append(context.message)
            await event_queue.enqueue_event(task)
        try:
            await self._handle_request(context, event_queue)
        except Exception as error:
            logger.exception("The A2A request failed: %s", error)
            message = Message(message_id=new_uuid4(), role=Role.ROLE_AGENT)
            message.parts.append(text_part(str(error) or type(error).__name__))
            await event_queue.enqueue_event(
                status_update(
                    context.task_id, context.context_id, TaskState.TASK_STATE_FAILED, message
                )
            )

    async def _prepare_session(self, run_request: AgentRunRequest, runner: Runner) -> Session:
        assert run_request.user_id is not None
        session = None
        if run_request.session_id:
            session = await runner.session_service.get_session(
                app_name=runner.app_name,
                user_id=run_request.user_id,
                session_id=run_request.session_id,
            )
        if session is None:
            session = await runner.session_service.create_session(
                app_name=runner.app_name,
                user_id=run_request.user_id,
                state={},
                session_id=run_request.session_id,
            )
            run_request.session_id = session.id
        return session

    async def _handle_request(self, context: RequestContext, event_queue: EventQueue) -> None:
        task_id, context_id = context.task_id, context.context_id
        runner = await self._resolve_runner()
        run_request = self._config.request_converter(context, self._config.a2a_part_converter)
        session = await self._prepare_session(run_request, runner)
        assert run_request.user_id is not None and run_request.session_id is not None
        run_context = _RunContext(runner.app_name, run_request.user_id, session)
        executor_context = ExecutorContext(
            runner.app_name, run_request.user_id, run_request.session_id, runner
        )
        key = _get_adk_metadata_key
        run_metadata: dict[str, Any] = {
            key("app_name"): runner.app_name,
            key("user_id"): run_request.user_id,
            key("session_id"): run_request.session_id,
        }
        await event_queue.enqueue_event(
            status_update(task_id, context_id, TaskState.TASK_STATE_WORKING, metadata=run_metadata)
        )
        aggregator = TaskResultAggregator()
        last_event: Event | None = None
        async for event in runner.run_async(
            user_id=run_request.user_id,
            session_id=run_request.session_id,
            new_message=run_request.new_message,
            state_delta=run_request.state_delta,
            run_config=run_request.run_config,
        ):
            last_event = event
            for converted in self._config.event_converter(
                event, run_context, task_id, context_id, self._config.gen_ai_part_converter
            ):
                for update in await self._after_event(executor_context, converted, event):
                    aggregator.process_event(update)
                    await event_queue.enqueue_event(update)
        final_metadata = dict(run_metadata)
        if last_event is not None:
            final_metadata[key("invocation_id")] = last_event.invocation_id
            final_metadata[key("author")] = last_event.author
            final_metadata[key("event_id")] = last_event.id
        await self._publish_result(
            aggregator, task_id, context_id, final_metadata, event_queue, executor_context
        )

    async def _after_event(
        self, executor_context: ExecutorContext, update: A2AEvent, event: Event
    ) -> list[A2AEvent]:
        updates = [update]
        for interceptor in self._interceptors:
            if interceptor.after_event is None:
                continue
            rewritten: list[A2AEvent] = []
            for item in updates:
                result = await interceptor.after_event(executor_context, item, event)
                if isinstance(result, list):
                    rewritten.extend(result)
                elif result is not None:
                    rewritten.append(result)
            updates = rewritten
            if not updates:
                break
        return updates

    async def _publish_result(
        self,
        aggregator: TaskResultAggregator,
        task_id: str | None,
        context_id: str | None,
        metadata: dict[str, Any],
        event_queue: EventQueue,
        executor_context: ExecutorContext,
    ) -> None:
        state = aggregator.task_state
        message = aggregator.task_status_message
        if state == TaskState.TASK_STATE_WORKING and message is not None and message.parts:
            artifact = Artifact(artifact_id=new_uuid4())
            artifact.parts.extend(message.parts)
            update = TaskArtifactUpdateEvent(
                task_id=task_id or "", context_id=context_id or "", last_chunk=True
            )
            update.artifact.CopyFrom(artifact)
            update.metadata.update(metadata)
            await event_queue.enqueue_event(update)
            message = None
        if state == TaskState.TASK_STATE_WORKING:
            state = TaskState.TASK_STATE_COMPLETED
        closing: TaskStatusUpdateEvent = status_update(
            task_id, context_id, state, message, metadata
        )
        for interceptor in self._interceptors:
            if interceptor.after_agent is not None:
                closing = await interceptor.after_agent(executor_context, closing)
        await event_queue.enqueue_event(closing)
