"""Event: one entry of a session's history."""

import time
from typing import Any

from pydantic import ConfigDict, Field

from pyadk import types
from pyadk.events.event_actions import EventActions
from pyadk.models.llm_response import LlmResponse
from pyadk.utils.ids import new_uuid4


class Event(LlmResponse):
    """A message or action in a conversation, authored by ``user`` or an agent.

    Events are persisted by the session service (partial ones are not). ``branch``
    (``parent.child`` names) scopes what history an agent sees in parallel runs.
    """

    model_config = ConfigDict(extra="forbid", defer_build=True)

    invocation_id: str = ""
    author: str
    actions: EventActions = Field(default_factory=EventActions)
    long_running_tool_ids: set[str] | None = None
    branch: str | None = None
    id: str = Field(default_factory=new_uuid4)
    timestamp: float = Field(default_factory=time.time)

    @staticmethod
    def new_id() -> str:
        """A fresh unique event id (UUID4 format; see :mod:`pyadk.utils.ids`)."""
        return new_uuid4()

    def is_final_response(self) -> bool:
        """True when this event ends the agent's step: an answer shown to the user.

        Tool results with ``skip_summarization`` and calls to long-running tools count
        as final; function calls/responses, partial chunks, trailing code-execution
        results and content-less outcome events (:meth:`is_outcome_event`) do not.
        """
        actions = self.actions
        if actions.skip_summarization or self.long_running_tool_ids:
            return True
        content = self.content
        if content is None:  # an outcome event is bookkeeping, not a response
            return actions.agent_outcome is None and not self.partial
        if self.partial:
            return False
        parts = content.parts
        if not parts:
            return True
        for part in parts:
            if part.function_call is not None or part.function_response is not None:
                return False
        return parts[-1].code_execution_result is None

    def is_outcome_event(self) -> bool:
        """True for the content-less event that records how an agent run ended."""
        return self.content is None and self.actions.agent_outcome is not None

    def get_function_calls(self) -> list[types.FunctionCall]:
        """The function calls in this event's content."""
        content = self.content
        if content is None or not content.parts:
            return []
        return [call for part in content.parts if (call := part.function_call) is not None]

    def get_function_responses(self) -> list[types.FunctionResponse]:
        """The function responses in this event's content."""
        content = self.content
        if content is None or not content.parts:
            return []
        return [
            response for part in content.parts if (response := part.function_response) is not None
        ]

    def has_trailing_code_execution_result(self) -> bool:
        """True when the last part is a code-execution result."""
        content = self.content
        if content is not None and content.parts:
            return content.parts[-1].code_execution_result is not None
        return False

    @property
    def text(self) -> str | None:
        """The event's text (non-thought text parts joined), or None."""
        return self.content.text if self.content else None

    def to_json_dict(self) -> dict[str, Any]:
        """The event as camelCase JSON-ready data (None fields omitted)."""
        return self.model_dump(mode="json", by_alias=True, exclude_none=True)
