"""The HTTP side of the OpenAPI tools: httpx clients (one per event loop, shared by a
toolset's tools) and the refusal of private-network targets."""

from __future__ import annotations

import asyncio
import ipaddress
import socket
import ssl
import weakref
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

from pyadk.tools._url_validator import address_refusal, name_refusal

if TYPE_CHECKING:
    import httpx

HttpxClientFactory = Callable[[], "httpx.AsyncClient"]
"""Makes a fresh ``httpx.AsyncClient`` for one request (closed after it)."""

SslVerify = bool | str | ssl.SSLContext | None
Timeout = float | None

DEFAULT_TIMEOUT = {"connect": 10.0, "read": 600.0, "write": 600.0, "pool": 10.0}
"""google-adk's request timeouts (seconds)."""


def import_httpx() -> Any:
    """httpx, or an ImportError saying which extra to install."""
    try:
        import httpx
    except ImportError as error:  # pragma: no cover - httpx is in the dev extra
        raise ImportError("The OpenAPI tools need httpx: pip install 'pyadk[openapi]'") from error
    return httpx


class HttpClients:
    """httpx clients for a toolset's tools: one per event loop, kept between calls and
    closed by :meth:`aclose`; or, with ``factory``, a fresh client per request."""

    def __init__(
        self,
        *,
        timeout: Timeout = None,
        ssl_verify: SslVerify = None,
        factory: HttpxClientFactory | None = None,
    ) -> None:
        self.timeout = timeout
        self.ssl_verify = ssl_verify
        self.factory = factory
        self._clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, httpx.AsyncClient]
        self._clients = weakref.WeakKeyDictionary()

    def _new_client(self) -> Any:
        httpx = import_httpx()
        timeout = (
            httpx.Timeout(**DEFAULT_TIMEOUT)
            if self.timeout is None
            else httpx.Timeout(self.timeout)
        )
        verify = True if self.ssl_verify is None else self.ssl_verify
        client = httpx.AsyncClient(timeout=timeout, verify=verify)
        return client

    @asynccontextmanager
    async def client(self) -> AsyncIterator[httpx.AsyncClient]:
        """The client to send one request with."""
        if self.factory is not None:
            async with self.factory() as fresh:
                yield fresh
            return
        loop = asyncio.get_running_loop()
        client = self._clients.get(loop)
        if client is None or client.is_closed:
            client = self._clients[loop] = self._new_client()
        yield client

    async def aclose(self) -> None:
        """Closes the client of the running loop; those of other loops are dropped."""
        loop = asyncio.get_running_loop()
        client = self._clients.pop(loop, None)
        self._clients.clear()
        if client is not None:
            await client.aclose()


async def blocked_reason(url: str) -> str | None:
    """Why ``url`` must not be called without ``allow_private_network_access`` (a name
    of the local machine or of internal infrastructure, or a host resolving to a
    loopback, private, link-local or otherwise non-public address; the checks of
    ``load_web_page``), or None."""
    httpx = import_httpx()
    try:
        host = httpx.URL(url).host
    except httpx.InvalidURL:
        return f"Invalid URL: {url}"
    if not host:
        return f"URL has no host: {url}"
    reason = name_refusal(host)
    if reason is not None:
        return f"Blocked host: {reason}"
    try:
        addresses = [ipaddress.ip_address(host)]
    except ValueError:
        loop = asyncio.get_running_loop()
        try:
            infos = await loop.getaddrinfo(host, None, proto=socket.IPPROTO_TCP)
        except OSError:
            return None  # unresolvable: the request itself reports it
        addresses = [ipaddress.ip_address(str(info[4][0]).split("%")[0]) for info in infos]
    for address in addresses:
        reason = address_refusal(address)
        if reason is not None:
            return f"Blocked host: {host} (resolves to {address}, {reason})"
    return None


__all__ = ["DEFAULT_TIMEOUT", "HttpClients", "HttpxClientFactory", "blocked_reason"]
