"""MCP tools: an agent uses the tools of a Model Context Protocol server.

Needs the ``mcp`` extra (``pip install 'pyadk[mcp]'``)::

    from mcp import StdioServerParameters
    from pyadk.tools.mcp_tool import McpToolset, StdioConnectionParams

    tools = McpToolset(
        connection_params=StdioConnectionParams(
            server_params=StdioServerParameters(command="python", args=["server.py"])
        )
    )
"""

from __future__ import annotations

try:
    import mcp  # noqa: F401
except ImportError as error:  # pragma: no cover - depends on the install
    raise ImportError("pyadk.tools.mcp_tool needs the MCP SDK: pip install 'pyadk[mcp]'") from error

from mcp import StdioServerParameters

from pyadk.tools.mcp_tool.connection_params import (
    SseConnectionParams,
    StdioConnectionParams,
    StreamableHTTPConnectionParams,
)
from pyadk.tools.mcp_tool.mcp_session_manager import HeaderProvider, McpConnectionError
from pyadk.tools.mcp_tool.mcp_tool import MCPTool, McpTool
from pyadk.tools.mcp_tool.mcp_toolset import MCPToolset, McpToolset

__all__ = [
    "HeaderProvider",
    "MCPTool",
    "MCPToolset",
    "McpConnectionError",
    "McpTool",
    "McpToolset",
    "SseConnectionParams",
    "StdioConnectionParams",
    "StdioServerParameters",
    "StreamableHTTPConnectionParams",
]
