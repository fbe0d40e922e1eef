"""BaseToolset: a source of tools resolved at run time (e.g. an MCP server)."""

from __future__ import annotations

import abc
from collections.abc import Callable
from typing import TYPE_CHECKING

from pyadk.tools.base_tool import BaseTool

if TYPE_CHECKING:
    from pyadk.agents.readonly_context import ReadonlyContext
    from pyadk.auth.auth_tool import AuthConfig
    from pyadk.models.llm_request import LlmRequest
    from pyadk.tools.tool_context import ToolContext

ToolPredicate = Callable[[BaseTool, "ReadonlyContext | None"], bool]
"""Decides whether a tool of a toolset is offered in this context."""


class BaseToolset(abc.ABC):
    """Provides tools on each step; ``tool_filter`` (names or predicate) narrows them."""

    def __init__(self, *, tool_filter: ToolPredicate | list[str] | None = None) -> None:
        self.tool_filter = tool_filter

    @abc.abstractmethod
    async def get_tools(self, readonly_context: ReadonlyContext | None = None) -> list[BaseTool]:
        """The toolset's tools for this context."""

    def get_auth_config(self) -> AuthConfig | None:
        """The credential this toolset needs to list and run its tools (None: none).

        Before each model call the agent's flow finds it (configured, saved in the
        credential service, or asked of the user with ``adk_request_credential``, which
        pauses the agent until the client answers) and makes it available as
        ``readonly_context.get_credential(auth_config.credential_key)``.
        """
        return None

    async def close(self) -> None:  # noqa: B027 - optional hook
        """Releases the toolset's resources (connections, processes)."""

    async def process_llm_request(  # noqa: B027 - optional hook
        self, *, tool_context: ToolContext, llm_request: LlmRequest
    ) -> None:
        """Shapes each model request of an agent that has this toolset (e.g. adds to its
        instruction); called before the agent's tools shape it. Nothing by default."""

    def _is_tool_selected(self, tool: BaseTool, readonly_context: ReadonlyContext | None) -> bool:
        if self.tool_filter is None:
            return True
        if isinstance(self.tool_filter, list):
            return tool.name in self.tool_filter
        return bool(self.tool_filter(tool, readonly_context))

    async def get_tools_checked(
        self, readonly_context: ReadonlyContext | None = None
    ) -> list[BaseTool]:
        """``get_tools`` with ``tool_filter`` applied."""
        tools = await self.get_tools(readonly_context)
        return [t for t in tools if self._is_tool_selected(t, readonly_context)]
