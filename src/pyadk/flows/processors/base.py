"""Request and response processors: the ordered steps of building and reading a model call."""

from __future__ import annotations

import abc
from collections.abc import AsyncGenerator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyadk.agents.invocation_context import InvocationContext
    from pyadk.events.event import Event
    from pyadk.models.llm_request import LlmRequest
    from pyadk.models.llm_response import LlmResponse


class BaseLlmRequestProcessor(abc.ABC):
    """Shapes the LlmRequest before the model call; may yield events."""

    @abc.abstractmethod
    def run_async(
        self, invocation_context: InvocationContext, llm_request: LlmRequest
    ) -> AsyncGenerator[Event, None]:
        """Updates ``llm_request`` in place."""


class SilentRequestProcessor(BaseLlmRequestProcessor):
    """A request processor that never yields events: it implements :meth:`process`.

    The flow awaits ``process`` directly, skipping the async-generator machinery that
    :meth:`run_async` (kept for callers that expect it) needs.
    """

    @abc.abstractmethod
    async def process(self, invocation_context: InvocationContext, llm_request: LlmRequest) -> None:
        """Updates ``llm_request`` in place."""

    async def run_async(
        self, invocation_context: InvocationContext, llm_request: LlmRequest
    ) -> AsyncGenerator[Event, None]:
        """Runs :meth:`process`; yields nothing."""
        await self.process(invocation_context, llm_request)
        return
        yield  # pragma: no cover


class SyncRequestProcessor(SilentRequestProcessor):
    """A silent request processor that never awaits: it implements :meth:`process_now`.

    The flow calls ``process_now`` directly (no coroutine to make and await); awaiting
    :meth:`process` does the same. A subclass that overrides ``process`` is awaited.
    """

    @abc.abstractmethod
    def process_now(self, invocation_context: InvocationContext, llm_request: LlmRequest) -> None:
        """Updates ``llm_request`` in place."""

    async def process(self, invocation_context: InvocationContext, llm_request: LlmRequest) -> None:
        """Runs :meth:`process_now`."""
        self.process_now(invocation_context, llm_request)


class BaseLlmResponseProcessor(abc.ABC):
    """Reads or rewrites the model's response; may yield events."""

    @abc.abstractmethod
    def run_async(
        self, invocation_context: InvocationContext, llm_response: LlmResponse
    ) -> AsyncGenerator[Event, None]:
        """Updates ``llm_response`` in place."""
