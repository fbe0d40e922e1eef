"""A small MCP server for the McpToolset tests: over stdio when run as a script, over
Streamable HTTP through :data:`server`'s ``streamable_http_app()``."""

from __future__ import annotations

import os

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError

server = MCPServer("pyadk-test-server")


@server.tool()
def add(a: int, b: int) -> int:
    """Adds two integers."""
    return a + b


@server.tool()
def lookup_order(order_id: str) -> dict:
    """Looks up an order; only order A-1 exists."""
    if order_id != "A-1":
        raise ToolError(f"order {order_id} not found")
    return {"order_id": order_id, "items": 3}


@server.tool()
def server_pid() -> int:
    """The server's process id."""
    return os.getpid()


@server.tool()
def crash() -> str:
    """Ends the server process at once (a crashed server)."""
    os._exit(3)


@server.tool()
def auth_header(ctx: Context) -> str:
    """The Authorization header of the request (HTTP only)."""
    headers = ctx.headers or {}
    return headers.get("authorization", "<none>")


if __name__ == "__main__":
    server.run("stdio")
