"""BaseTool: something an agent's model can call."""

from __future__ import annotations

import abc
from typing import TYPE_CHECKING, Any

from pyadk import types

if TYPE_CHECKING:
    from pyadk.models.llm_request import LlmRequest
    from pyadk.tools.tool_context import ToolContext


class BaseTool(abc.ABC):
    """A tool: a name, a description, a declaration for the model and a ``run_async``."""

    def __init__(self, *, name: str, description: str = "", is_long_running: bool = False):
        self.name = name
        self.description = description
        self.is_long_running = is_long_running
        """Long-running tools pause the agent; the client sends the result later."""

    def _get_declaration(self) -> types.FunctionDeclaration | None:
        """The function declaration shown to the model (None: not a function tool)."""
        return None

    @abc.abstractmethod
    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        """Runs the tool with the model's arguments."""

    async def process_llm_request(
        self, *, tool_context: ToolContext, llm_request: LlmRequest
    ) -> None:
        """Lets the tool shape the request; by default declares the tool to the model."""
        llm_request.append_tools([self])

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r})"
