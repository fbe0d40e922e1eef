"""The connections of an MCP toolset: opened on first use, kept, pooled, closed.

An MCP client connection (the ``mcp`` SDK's :class:`mcp.Client`) lives in anyio task
groups and cancel scopes, which must be left by the task that entered them; closing
it from another task is the "exit cancel scope in a different task" teardown error.
So each connection is opened, held and closed by one background task of its own,
which any task of the same event loop can use. A connection serves one event loop
(``Runner.run`` makes one per call), and, for HTTP servers with a ``header_provider``,
one set of request headers (e.g. one user's token): at most ``max_connections`` of
them per loop are kept, the least recently used idle one closed first.
"""

from __future__ import annotations

import asyncio
import logging
import sys
import weakref
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from typing import TYPE_CHECKING, TextIO

import anyio
import httpx2
from mcp import Client, MCPError, StdioServerParameters
from mcp.client.sse import sse_client
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp_types import CONNECTION_CLOSED

from pyadk.tools.mcp_tool.connection_params import (
    ConnectionParams,
    SseConnectionParams,
    StdioConnectionParams,
    StreamableHTTPConnectionParams,
)

if TYPE_CHECKING:
    from pyadk.agents.readonly_context import ReadonlyContext

logger = logging.getLogger(__name__)

HeaderProvider = Callable[["ReadonlyContext"], dict[str, str]]
"""Computes the HTTP headers of a request from the run's context (e.g. a user's token)."""

_CONNECTION_ERRORS = (anyio.ClosedResourceError, anyio.BrokenResourceError, EOFError, OSError)
"""What a request raises, besides the SDK's CONNECTION_CLOSED error, when the connection
itself is gone."""

_Key = frozenset[tuple[str, str]]
"""A connection's extra request headers."""


class McpConnectionError(ConnectionError):
    """The MCP server could not be started or reached, did not answer the handshake, or
    closed the connection during a call."""


class McpSessionManager:
    """Opens connections to one MCP server on first use and keeps them for later calls."""

    def __init__(
        self,
        connection_params: ConnectionParams,
        *,
        errlog: TextIO | None = None,
        header_provider: HeaderProvider | None = None,
        max_connections: int = 8,
    ) -> None:
        if isinstance(connection_params, StdioServerParameters):
            connection_params = StdioConnectionParams(server_params=connection_params)
        if not isinstance(
            connection_params,
            StdioConnectionParams | StreamableHTTPConnectionParams | SseConnectionParams,
        ):
            raise TypeError(
                "connection_params must be StdioConnectionParams, StdioServerParameters, "
                "StreamableHTTPConnectionParams or SseConnectionParams, "
                f"not {type(connection_params).__name__}."
            )
        if header_provider is not None and isinstance(connection_params, StdioConnectionParams):
            raise ValueError("header_provider needs an HTTP server; a stdio server has no headers.")
        if max_connections < 1:
            raise ValueError(f"max_connections must be 1 or more, got {max_connections}.")
        if errlog is not None:
            try:
                errlog.fileno()
            except (AttributeError, OSError, ValueError) as error:
                raise TypeError(
                    "errlog must be a file with a file descriptor (a stdio server's stderr "
                    "goes there), e.g. open('mcp.log', 'a') or sys.stderr."
                ) from error
        self.connection_params = connection_params
        self.header_provider = header_provider
        self.max_connections = max_connections
        self._errlog = errlog
        self._pools: weakref.WeakKeyDictionary[
            asyncio.AbstractEventLoop, OrderedDict[_Key, _Connection]
        ] = weakref.WeakKeyDictionary()

    @property
    def server_label(self) -> str:
        """The server, as error messages name it (its command line or URL)."""
        params = self.connection_params
        if isinstance(params, StdioConnectionParams):
            return " ".join([params.server_params.command, *params.server_params.args])
        return params.url

    @asynccontextmanager
    async def session(self, context: ReadonlyContext | None = None) -> AsyncIterator[Client]:
        """The connected client for the running loop (and ``context``'s headers), held
        for the ``async with`` block; connects if needed.

        Raises McpConnectionError when the server cannot be started or reached, does
        not complete the handshake within the connection's ``timeout``, or closes the
        connection during the block (which drops it: the next use reconnects)."""
        key: _Key = frozenset()
        if self.header_provider is not None and context is not None:
            key = frozenset(self.header_provider(context).items())
        pool = self._pools.setdefault(asyncio.get_running_loop(), OrderedDict())
        connection = pool.get(key)
        if connection is None or connection.finished:
            connection = pool[key] = _Connection(self, dict(key))
        pool.move_to_end(key)
        connection.users += 1
        try:
            await self._evict(pool)
            client = await connection.ready()
            try:
                yield client
            except Exception as error:
                if not is_connection_lost(error):
                    raise
                await self.drop(client)  # the next use reconnects
                raise McpConnectionError(
                    f"MCP server {self.server_label!r} closed the connection during a "
                    "request: it may or may not have been carried out."
                ) from error
        finally:
            connection.users -= 1

    def open_connections(self) -> int:
        """How many connections the running event loop holds (open or opening)."""
        pool = self._pools.get(asyncio.get_running_loop(), OrderedDict())
        return sum(not connection.finished for connection in pool.values())

    async def drop(self, client: Client) -> None:
        """Closes the connection of ``client`` (after it failed); the next use reconnects."""
        pool = self._pools.get(asyncio.get_running_loop(), OrderedDict())
        for key, connection in list(pool.items()):
            if connection.client is client:
                del pool[key]
                await connection.close()

    async def close(self) -> None:
        """Closes the connections of the running event loop (and asks those of other
        loops still running to close)."""
        current = asyncio.get_running_loop()
        for loop, pool in list(self._pools.items()):
            for connection in pool.values():
                if loop is current:
                    await connection.close()
                elif loop.is_running():
                    loop.call_soon_threadsafe(connection.stop.set)
        self._pools.clear()

    async def _evict(self, pool: OrderedDict[_Key, _Connection]) -> None:
        """Closes the least recently used idle connections beyond ``max_connections``."""
        excess = len(pool) - self.max_connections
        for key, connection in list(pool.items()):
            if excess <= 0:
                return
            if connection.users == 0:
                del pool[key]
                excess -= 1
                await connection.close()

    def _open(self, stack: AsyncExitStack, headers: dict[str, str]) -> Client:
        """A client for the server; its transport's resources go on ``stack``."""
        params = self.connection_params
        if isinstance(params, StdioConnectionParams):
            return Client(stdio_client(params.server_params, errlog=self._errlog or sys.stderr))
        all_headers = {**(params.headers or {}), **headers}
        if isinstance(params, SseConnectionParams):
            return Client(
                sse_client(
                    params.url,
                    headers=all_headers,
                    timeout=params.timeout,
                    sse_read_timeout=params.sse_read_timeout,
                )
            )
        http = httpx2.AsyncClient(
            headers=all_headers,
            timeout=httpx2.Timeout(params.timeout, read=params.sse_read_timeout),
        )
        stack.push_async_callback(http.aclose)
        transport = streamable_http_client(
            params.url, http_client=http, terminate_on_close=params.terminate_on_close
        )
        return Client(transport)


class _Connection:
    """One connection, held by a task of its own until :meth:`close`."""

    def __init__(self, manager: McpSessionManager, headers: dict[str, str]) -> None:
        self._manager = manager
        self._headers = headers
        self.client: Client | None = None
        self.error: BaseException | None = None
        self.finished = False
        self.users = 0
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
                client = self._manager._open(stack, self._headers)
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


def is_connection_lost(error: BaseException) -> bool:
    """Whether ``error`` (raised by a request) means the connection itself is gone."""
    if isinstance(error, MCPError):
        return error.error.code == CONNECTION_CLOSED
    return isinstance(error, _CONNECTION_ERRORS)


def _innermost(error: BaseException | None) -> BaseException | None:
    """The one error inside nested single-error groups (the SDK's task groups wrap them)."""
    while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
        error = error.exceptions[0]
    return error


__all__ = ["HeaderProvider", "McpConnectionError", "McpSessionManager", "is_connection_lost"]
