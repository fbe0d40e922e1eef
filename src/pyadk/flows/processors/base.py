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


class BaseLlmResponseProcessor(abc.ABC):
    """Reads or rewrites the model's response; may yield events."""

    @abc.abstractmethod
    def run_async(
        self, invocation_context: InvocationContext, llm_response: LlmResponse
    ) -> AsyncGenerator[Event, None]:
        """Updates ``llm_response`` in place."""
