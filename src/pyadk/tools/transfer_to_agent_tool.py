"""transfer_to_agent: hands the conversation to another agent."""

from __future__ import annotations

from typing import Any

from pyadk import types
from pyadk.tools.function_tool import FunctionTool
from pyadk.tools.tool_context import ToolContext


def transfer_to_agent(agent_name: str, tool_context: ToolContext) -> dict[str, str]:
    """Transfers the question to another agent.

    Args:
      agent_name: the name of the agent to transfer to.
    """
    tool_context.actions.transfer_to_agent = agent_name
    return {"status": f"transferred to {agent_name}"}


class TransferToAgentTool(FunctionTool):
    """``transfer_to_agent`` restricted to the agents the current agent may reach.

    A name outside ``allowed`` becomes an error result for the model, not a transfer.
    """

    def __init__(self, allowed: list[str]) -> None:
        super().__init__(transfer_to_agent, idempotent=True)
        self.allowed = allowed
        self._restricted: types.FunctionDeclaration | None = None

    def _get_declaration(self) -> types.FunctionDeclaration | None:
        """The declaration, with the valid agent names as an enum."""
        if self._restricted is None:
            declaration = super()._get_declaration()
            assert declaration is not None
            declaration = declaration.model_copy(deep=True)
            parameters = declaration.parameters
            target = (parameters.properties or {}).get("agent_name") if parameters else None
            if target is not None:
                target.enum = list(self.allowed)
            self._restricted = declaration
        return self._restricted

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        target = (args or {}).get("agent_name")
        if target not in self.allowed:
            return {
                "error": f"Cannot transfer to {target!r}. "
                f"Valid agent names: {', '.join(self.allowed)}."
            }
        return await super().run_async(args=args, tool_context=tool_context)
