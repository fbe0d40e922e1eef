"""Fixtures of the MCP toolset tests: a real MCP server, as a stdio subprocess or over
Streamable HTTP on 127.0.0.1 (uvicorn in a thread, as in tests/server)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
for folder in (HERE, HERE.parents[1] / "server"):  # mcp_demo_server, server_support
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))

from server_support import LiveServer  # noqa: E402

from pyadk.tools.mcp_tool import StdioConnectionParams, StdioServerParameters  # noqa: E402

SERVER_SCRIPT = HERE / "mcp_demo_server.py"


@pytest.fixture
def stdio_params() -> StdioConnectionParams:
    """Runs mcp_demo_server.py as a subprocess (generous timeout: a cold start imports
    the MCP SDK)."""
    return StdioConnectionParams(
        server_params=StdioServerParameters(command=sys.executable, args=[str(SERVER_SCRIPT)]),
        timeout=60,
    )


@pytest.fixture
def http_url() -> Iterator[str]:
    """mcp_demo_server's Streamable HTTP endpoint on a live local server."""
    from mcp_demo_server import server

    with LiveServer(server.streamable_http_app()) as live:
        yield f"{live.url}/mcp"


@pytest.fixture
def sse_url() -> Iterator[str]:
    """mcp_demo_server's older HTTP+SSE endpoint on a live local server."""
    from mcp_demo_server import server

    with LiveServer(server.sse_app()) as live:
        yield f"{live.url}/sse"
