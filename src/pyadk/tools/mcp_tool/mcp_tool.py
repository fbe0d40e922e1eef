"""McpTool: one tool of an MCP server, offered to the model like any function tool."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mcp import MCPError
from mcp_types import TextContent

from pyadk import types
from pyadk.tools.base_tool import BaseTool, RequireConfirmation
from pyadk.tools.mcp_tool.mcp_session_manager import is_connection_lost

if TYPE_CHECKING:
    import mcp_types

    from pyadk.tools.mcp_tool.mcp_session_manager import McpSessionManager
    from pyadk.tools.tool_context import ToolContext

_BOOKKEEPING = {"meta", "result_type"}
"""Protocol fields of a result that tell the model nothing about the tool's output."""


class McpTool(BaseTool):
    """Calls the MCP tool ``mcp_tool`` through ``session_manager``'s connection.

    The result is the MCP ``CallToolResult`` as JSON data (``content``,
    ``structuredContent``, ``isError``; not the protocol's ``_meta``). A result the
    server marks as an error also carries ``"status": "error"`` and a ``message``, so
    that pyadk records the agent's run as a failure and the model sees what went wrong.
    A request the server refuses (e.g. invalid arguments) comes back the same way; a
    lost connection raises :class:`McpConnectionError` (the next call reconnects).
    """

    def __init__(
        self,
        *,
        mcp_tool: mcp_types.Tool,
        session_manager: McpSessionManager,
        require_confirmation: RequireConfirmation = False,
    ) -> None:
        hints = mcp_tool.annotations
        super().__init__(
            name=mcp_tool.name,
            description=mcp_tool.description or "",
            require_confirmation=require_confirmation,
            # what the server says of the tool: a read-only or idempotent one may run again
            idempotent=hints is not None and bool(hints.read_only_hint or hints.idempotent_hint),
        )
        self.mcp_tool = mcp_tool
        self._session_manager = session_manager

    def _get_declaration(self) -> types.FunctionDeclaration:
        schema = dict(self.mcp_tool.input_schema or {"type": "object", "properties": {}})
        return types.FunctionDeclaration(
            name=self.name, description=self.description, parameters_json_schema=schema
        )

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        async with self._session_manager.session(tool_context) as client:
            try:
                result = await client.call_tool(self.name, args)
            except MCPError as error:
                if is_connection_lost(error):
                    raise  # McpConnectionError from the session: never re-run on its own
                # refused by the server (unknown tool, bad arguments): the model can retry
                return {"status": "error", "message": str(error)}
        data: dict[str, Any] = result.model_dump(
            mode="json", by_alias=True, exclude_none=True, exclude=_BOOKKEEPING
        )
        if result.is_error:
            texts = [c.text for c in result.content if isinstance(c, TextContent)]
            data["status"] = "error"
            data["message"] = "\n".join(texts) or f"MCP tool {self.name!r} failed"
        return data


MCPTool = McpTool
"""google-adk's older name."""

__all__ = ["MCPTool", "McpTool"]
