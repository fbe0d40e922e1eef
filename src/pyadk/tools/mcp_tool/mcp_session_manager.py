"""Connections to MCP servers: how to reach one, and the task that owns each connection.

An MCP client connection (the ``mcp`` SDK's :class:`mcp.Client`) lives in anyio task
groups and cancel scopes, which must be left by the task that entered them; closing
it from another task is the "exit cancel scope in a different task" teardown error.
So each connection is opened, held and closed by one background task of its own,
which any task of the same event loop can use, and which :meth:`McpSessionManager.close`
stops. A connection serves one event loop (``Runner.run`` makes one per call): a
manager used from another loop opens another connection there.
"""

from __future__ import annotations

import asyncio
import logging
import sys
import weakref
from contextlib import AsyncExitStack
from typing import TextIO

import httpx2
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from pydantic import BaseModel, ConfigDict, Field

logger = logging.getLogger(__name__)


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
    ``terminate_on_close`` ends the server-side session when the toolset closes.
    """

    model_config = ConfigDict(extra="forbid")

    url: str
    headers: dict[str, str] | None = None
    timeout: float = Field(default=5.0, gt=0)
    sse_read_timeout: float = Field(default=300.0, gt=0)
    terminate_on_close: bool = True


ConnectionParams = StdioServerParameters | StdioConnectionParams | StreamableHTTPConnectionParams
"""What :class:`~pyadk.tools.mcp_tool.McpToolset` accepts as ``connection_params``."""


class McpConnectionError(ConnectionError):
    """The MCP server could not be started or reached, or did not answer the handshake."""


class McpSessionManager:
    """Opens a connection to one MCP server on first use and keeps it for later calls."""

    def __init__(self, connection_params: ConnectionParams, errlog: TextIO | None = None) -> None:
        if isinstance(connection_params, StdioServerParameters):
            connection_params = StdioConnectionParams(server_params=connection_params)
        if not isinstance(
            connection_params, StdioConnectionParams | StreamableHTTPConnectionParams
        ):
            raise TypeError(
                "connection_params must be StdioConnectionParams, StdioServerParameters or "
                f"StreamableHTTPConnectionParams, not {type(connection_params).__name__}."
            )
        if errlog is not None:
            try:
                errlog.fileno()
            except (AttributeError, OSError, ValueError) as error:
                raise TypeError(
                    "errlog must be a file with a file descriptor (a stdio server's stderr "
                    "goes there), e.g. open('mcp.log', 'a') or sys.stderr."
                ) from error
        self.connection_params = connection_params
        self._errlog = errlog
        self._connections: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Connection] = (
            weakref.WeakKeyDictionary()
        )

    @property
    def server_label(self) -> str:
        """The server, as error messages name it (its command line or URL)."""
        params = self.connection_params
        if isinstance(params, StdioConnectionParams):
            return " ".join([params.server_params.command, *params.server_params.args])
        return params.url

    async def client(self) -> Client:
        """The connected client for the running event loop (connecting if needed).

        Raises McpConnectionError when the server cannot be started or reached, or
        does not complete the handshake within the connection's ``timeout``."""
        loop = asyncio.get_running_loop()
        connection = self._connections.get(loop)
        if connection is None or connection.finished:
            connection = self._connections[loop] = _Connection(self)
        return await connection.ready()

    async def reset(self, client: Client) -> None:
        """Drops the connection of ``client`` (after it failed); the next use reconnects."""
        connection = self._connections.get(asyncio.get_running_loop())
        if connection is not None and connection.client is client:
            await connection.close()

    async def close(self) -> None:
        """Closes the connection of the running event loop (and asks those of other
        loops still running to close)."""
        current = asyncio.get_running_loop()
        for loop, connection in list(self._connections.items()):
            if loop is current:
                await connection.close()
            elif loop.is_running():
                loop.call_soon_threadsafe(connection.stop.set)
        self._connections.clear()

    def _open(self, stack: AsyncExitStack) -> Client:
        """A client for the server; its transport's resources go on ``stack``."""
        params = self.connection_params
        if isinstance(params, StdioConnectionParams):
            return Client(stdio_client(params.server_params, errlog=self._errlog or sys.stderr))
        http = httpx2.AsyncClient(
            headers=params.headers,
            timeout=httpx2.Timeout(params.timeout, read=params.sse_read_timeout),
        )
        stack.push_async_callback(http.aclose)
        transport = streamable_http_client(
            params.url, http_client=http, terminate_on_close=params.terminate_on_close
        )
        return Client(transport)


class _Connection:
    """One connection, held by a task of its own until :meth:`close`."""

    def __init__(self, manager: McpSessionManager) -> None:
        self._manager = manager
        self.client: Client | None = None
        self.error: BaseException | None = None
        self.finished = False
        self.stop = asyncio.Event()
        self._connected = asyncio.Event()
        self._task = asyncio.get_running_loop().create_task(
            self._hold(), name=f"mcp connection to {manager.server_label}"
        )

    async def ready(self) -> Client:
        timeout = self._manager.connection_params.timeout
        try:
            await asyncio.wait_for(asyncio.shield(self._connected.wait()), timeout)
        except TimeoutError:
            await self.close()
            raise McpConnectionError(
                f"MCP server {self._manager.server_label!r} did not answer within {timeout:g} s."
            ) from None
        if self.client is None:
            cause = _innermost(self.error)
            raise McpConnectionError(
                f"Could not connect to MCP server {self._manager.server_label!r}: "
                f"{type(cause).__name__}: {cause}"
            ) from self.error
        return self.client

    async def _hold(self) -> None:
        try:
            async with AsyncExitStack() as stack:
                client = self._manager._open(stack)
                self.client = await stack.enter_async_context(client)
                self._connected.set()
                await self.stop.wait()
        except Exception as error:  # also a connection lost later: the next use reconnects
            self.error = error
            logger.debug("MCP connection to %s ended: %r", self._manager.server_label, error)
        finally:
            self.finished = True
            if self.error is not None or not self._connected.is_set():
                self.client = None
            self._connected.set()

    async def close(self) -> None:
        self.finished = True
        self.stop.set()
        task = self._task
        if task.done():
            return
        if not self._connected.is_set():  # still starting: nothing to close politely
            task.cancel()
        try:
            await asyncio.wait_for(asyncio.shield(task), 10)
        except TimeoutError:
            task.cancel()
        except asyncio.CancelledError:
            if not task.cancelled():  # this caller was cancelled, not the task
                raise
        except Exception:  # its error is already recorded
            pass


def _innermost(error: BaseException | None) -> BaseException | None:
    """The one error inside nested single-error groups (the SDK's task groups wrap them)."""
    while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
        error = error.exceptions[0]
    return error


__all__ = [
    "ConnectionParams",
    "McpConnectionError",
    "McpSessionManager",
    "StdioConnectionParams",
    "StreamableHTTPConnectionParams",
]
