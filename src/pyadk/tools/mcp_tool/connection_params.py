"""How to reach an MCP server: a stdio subprocess, Streamable HTTP, or SSE."""

from __future__ import annotations

from mcp import StdioServerParameters
from pydantic import BaseModel, ConfigDict, Field


class StdioConnectionParams(BaseModel):
    """An MCP server run as a subprocess, spoken to over its stdin and stdout.

    ``timeout``: seconds to wait for the server to start and answer the handshake.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True, extra="forbid")

    server_params: StdioServerParameters
    timeout: float = Field(default=5.0, gt=0)


class StreamableHTTPConnectionParams(BaseModel):
    """An MCP server reached over Streamable HTTP at ``url``.

    ``headers`` go with every request (e.g. ``Authorization``); ``timeout`` bounds
    connecting and each request, ``sse_read_timeout`` a quiet response stream;
    ``terminate_on_close`` ends the server-side session when the connection closes.
    """

    model_config = ConfigDict(extra="forbid")

    url: str
    headers: dict[str, str] | None = None
    timeout: float = Field(default=5.0, gt=0)
    sse_read_timeout: float = Field(default=300.0, gt=0)
    terminate_on_close: bool = True


class SseConnectionParams(BaseModel):
    """An MCP server reached over the older HTTP+SSE transport at ``url`` (its SSE
    endpoint, e.g. ``.../sse``); the fields mean what they mean for Streamable HTTP."""

    model_config = ConfigDict(extra="forbid")

    url: str
    headers: dict[str, str] | None = None
    timeout: float = Field(default=5.0, gt=0)
    sse_read_timeout: float = Field(default=300.0, gt=0)


HttpConnectionParams = StreamableHTTPConnectionParams | SseConnectionParams
ConnectionParams = StdioServerParameters | StdioConnectionParams | HttpConnectionParams
"""What :class:`~pyadk.tools.mcp_tool.McpToolset` accepts as ``connection_params``."""

__all__ = [
    "ConnectionParams",
    "HttpConnectionParams",
    "SseConnectionParams",
    "StdioConnectionParams",
    "StreamableHTTPConnectionParams",
]
