"""McpToolset: the tools of an MCP server (a stdio subprocess, Streamable HTTP or SSE)."""

from __future__ import annotations

from typing import TYPE_CHECKING, TextIO

from pyadk.tools.base_tool import RequireConfirmation
from pyadk.tools.base_toolset import BaseToolset, ToolPredicate
from pyadk.tools.mcp_tool.connection_params import ConnectionParams
from pyadk.tools.mcp_tool.mcp_session_manager import HeaderProvider, McpSessionManager
from pyadk.tools.mcp_tool.mcp_tool import McpTool

if TYPE_CHECKING:
    from pyadk.agents.readonly_context import ReadonlyContext
    from pyadk.tools.base_tool import BaseTool


class McpToolset(BaseToolset):
    """Offers an MCP server's tools to an agent (``tools=[McpToolset(...)]``).

    The server is started or reached on first use, and the connection is kept until
    :meth:`close` (``Runner.close()`` closes the toolsets of its agents). The tool list
    is read from the server on each model step, so tools the server adds or removes
    show up; ``tool_filter`` (names, or a predicate) narrows it. ``errlog`` (a file with
    a file descriptor) receives a stdio server's stderr (default: this process's stderr).

    ``header_provider`` (HTTP servers) computes extra request headers from the run's
    context, e.g. the signed-in user's token from state: each distinct set of headers gets
    a connection of its own, and at most ``max_connections`` are kept per event loop (the
    least recently used idle one is closed first). ``require_confirmation`` (True, or a
    predicate over a call's arguments) makes the server's tools wait for approval.
    """

    def __init__(
        self,
        *,
        connection_params: ConnectionParams,
        tool_filter: ToolPredicate | list[str] | None = None,
        errlog: TextIO | None = None,
        header_provider: HeaderProvider | None = None,
        max_connections: int = 8,
        require_confirmation: RequireConfirmation = False,
    ) -> None:
        super().__init__(tool_filter=tool_filter)
        self.connection_params = connection_params
        self.require_confirmation = require_confirmation
        """Given to every tool of the server: True, or a predicate over a call's arguments."""
        self._session_manager = McpSessionManager(
            connection_params,
            errlog=errlog,
            header_provider=header_provider,
            max_connections=max_connections,
        )

    async def get_tools(self, readonly_context: ReadonlyContext | None = None) -> list[BaseTool]:
        """The server's tools (every page of its list)."""
        tools: list[BaseTool] = []
        cursor: str | None = None
        async with self._session_manager.session(readonly_context) as client:
            while True:
                listed = await client.list_tools(cursor=cursor)
                tools.extend(
                    McpTool(
                        mcp_tool=tool,
                        session_manager=self._session_manager,
                        require_confirmation=self.require_confirmation,
                    )
                    for tool in listed.tools
                )
                cursor = listed.next_cursor
                if not cursor:
                    return tools

    async def close(self) -> None:
        """Closes the connection (a stdio server's process ends with it)."""
        await self._session_manager.close()

    def __repr__(self) -> str:
        return f"McpToolset({self._session_manager.server_label!r})"


MCPToolset = McpToolset
"""google-adk's older name."""

__all__ = ["MCPToolset", "McpToolset"]
