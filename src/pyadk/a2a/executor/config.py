"""A2aAgentExecutorConfig: the converters and interceptors of an A2aAgentExecutor."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from a2a.server.agent_execution import RequestContext
from a2a.types import TaskStatusUpdateEvent

from pyadk.a2a.converters.event_converter import (
    A2AEvent,
    AdkEventToA2AEventsConverter,
    convert_event_to_a2a_events,
)
from pyadk.a2a.converters.part_converter import (
    A2APartToGenAIPartConverter,
    GenAIPartToA2APartConverter,
    convert_a2a_part_to_genai_part,
    convert_genai_part_to_a2a_part,
)
from pyadk.a2a.converters.request_converter import (
    A2ARequestToAgentRunRequestConverter,
    convert_a2a_request_to_agent_run_request,
)
from pyadk.a2a.executor.executor_context import ExecutorContext
from pyadk.events import Event


@dataclass
class ExecuteInterceptor:
    """Hooks around one A2A request; each is optional.

    ``before_agent`` may rewrite the request context; ``after_event`` may rewrite an
    outgoing update, split it into several, or drop it (return None), which also skips
    the interceptors after it; ``after_agent`` may rewrite the closing status update.
    """

    before_agent: Callable[[RequestContext], Awaitable[RequestContext]] | None = None
    after_event: (
        Callable[[ExecutorContext, A2AEvent, Event], Awaitable[A2AEvent | list[A2AEvent] | None]]
        | None
    ) = None
    after_agent: (
        Callable[[ExecutorContext, TaskStatusUpdateEvent], Awaitable[TaskStatusUpdateEvent]] | None
    ) = None


@dataclass
class A2aAgentExecutorConfig:
    """The converters the executor uses (replace one to customise the mapping) and its
    interceptors, run in order."""

    a2a_part_converter: A2APartToGenAIPartConverter = convert_a2a_part_to_genai_part
    gen_ai_part_converter: GenAIPartToA2APartConverter = convert_genai_part_to_a2a_part
    request_converter: A2ARequestToAgentRunRequestConverter = (
        convert_a2a_request_to_agent_run_request
    )
    event_converter: AdkEventToA2AEventsConverter = convert_event_to_a2a_events
    execute_interceptors: list[ExecuteInterceptor] | None = field(default=None)
