"""A small MCP server for the McpToolset tests: over stdio when run as a script, over
Streamable HTTP through :data:`server`'s ``streamable_http_app()``."""

from __future__ import annotations

import os

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ToolError

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


LOGO_PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(16))
"""The bytes of the binary resource ``logo``."""


@server.resource("docs://refund-policy", name="refund_policy", mime_type="text/markdown")
def refund_policy() -> str:
    """The shop's refund policy."""
    return "Refunds within 30 days, with the receipt."


@server.resource("images://logo.png", name="logo", mime_type="image/png")
def logo() -> bytes:
    """The shop's logo."""
    return LOGO_PNG


@server.resource("docs://broken", name="broken")
def broken() -> str:
    """A resource whose every read fails on the server."""
    raise ResourceError("the disk is on fire")


if __name__ == "__main__":
    server.run("stdio")
