"""BasePlanner: the interface of the planners an LlmAgent can use (``LlmAgent.planner``).

Kept tiny (nothing imported at run time): ``LlmAgent`` imports it to type its field.
"""

from __future__ import annotations

import abc
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyadk import types
    from pyadk.agents.callback_context import CallbackContext
    from pyadk.agents.readonly_context import ReadonlyContext
    from pyadk.models.llm_request import LlmRequest


class BasePlanner(abc.ABC):
    """Guides an agent's model calls with a plan.

    Before each model call, :meth:`build_planning_instruction` may add a system
    instruction; after it, :meth:`process_planning_response` may rewrite the parts of
    the model's response (e.g. mark its reasoning as thought parts).
    """

    @abc.abstractmethod
    def build_planning_instruction(
        self, readonly_context: ReadonlyContext, llm_request: LlmRequest
    ) -> str | None:
        """The system instruction to append to ``llm_request`` (read it, do not change
        it), or None for no instruction."""

    @abc.abstractmethod
    def process_planning_response(
        self, callback_context: CallbackContext, response_parts: list[types.Part]
    ) -> list[types.Part] | None:
        """The parts that replace ``response_parts`` (do not change these), or None (or
        an empty list) to keep the response as it is.

        Runs for every response, streamed chunks included. State written through
        ``callback_context.state`` is recorded in an event of its own.
        """
