"""Records what the agents of an eval run were told: per agent, the system instruction
and the tool declarations its model calls were sent (google-adk's ``app_details`` of
an invocation, which the judged metrics show their judge)."""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any

from pyadk.plugins.base_plugin import BasePlugin

if TYPE_CHECKING:
    from pyadk.agents.callback_context import CallbackContext
    from pyadk.models.llm_request import LlmRequest
    from pyadk.models.llm_response import LlmResponse


class AppDetailsRecorder(BasePlugin):
    """Collects ``{"agent_details": {name: {"name", "instructions",
    "tool_declarations"}}}`` from the model requests made since :meth:`reset`."""

    def __init__(self) -> None:
        super().__init__(name="eval_app_details")
        self._agents: dict[str, dict[str, Any]] = {}

    def reset(self) -> None:
        """Starts a new invocation's record."""
        self._agents = {}

    def app_details(self) -> dict[str, Any] | None:
        """What was recorded since :meth:`reset` (None when no model was called)."""
        if not self._agents:
            return None
        return {"agent_details": copy.deepcopy(self._agents)}

    async def before_model_callback(
        self, *, callback_context: CallbackContext, llm_request: LlmRequest
    ) -> LlmResponse | None:
        name = callback_context.agent_name
        agent = self._agents.setdefault(
            name, {"name": name, "instructions": "", "tool_declarations": []}
        )
        agent["instructions"] = llm_request.system_instruction_text()
        declarations = [
            declaration.model_dump(mode="json", exclude_none=True)
            for tool in llm_request.config.tools or ()
            for declaration in tool.function_declarations or ()
        ]
        if declarations:
            agent["tool_declarations"] = [{"function_declarations": declarations}]
        return None
