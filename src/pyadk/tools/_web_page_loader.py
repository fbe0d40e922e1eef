"""How ``load_web_page`` fetches a page: the checked connection, redirects, limits and
decoding (imported on the first fetch; see :mod:`pyadk.tools.load_web_page`)."""

from __future__ import annotations

import codecs
import re
import ssl
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING
from urllib.parse import urljoin

from pyadk.tools._url_validator import HostPolicy, RefusedUrl, UrlTarget, parse_target

if TYPE_CHECKING:
    import httpx


_REDIRECTS = frozenset({301, 302, 303, 307, 308})
_HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
_TEXT_TYPES = frozenset({"application/json", "application/xml", "application/javascript"})
_HEADERS = {
    "User-Agent": "Mozilla/5.0 (compatible; pyadk load_web_page)",
    "Accept": "text/html,application/xhtml+xml,text/plain;q=0.9,*/*;q=0.5",
}
_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?([A-Za-z0-9_.:-]+)""", re.I)
_BOMS = ((codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_LE, "utf-16"),
         (codecs.BOM_UTF16_BE, "utf-16"))  # fmt: skip


class _FetchFailed(Exception):
    """The page could not be read; the message says why."""


@dataclass(frozen=True)
class _WebPageLoader:
    policy: HostPolicy
    timeout: float
    total_timeout: float
    max_response_bytes: int
    max_redirects: int

    def load(self, url: str) -> str:
        try:
            import httpx
        except ImportError as error:
            raise ImportError(
                "load_web_page needs httpx: install it with pip install 'pyadk[web]'"
            ) from error
        deadline = time.monotonic() + self.total_timeout
        try:
            content_type, body = self._fetch(url, deadline)
            return _page_text(content_type, body)
        except (RefusedUrl, _FetchFailed) as error:
            reason = str(error)
        except httpx.TimeoutException:
            if time.monotonic() >= deadline:
                reason = f"the page did not arrive within {self.total_timeout:g} s"
            else:
                reason = f"the server did not answer within {self.timeout:g} s"
        except (httpx.HTTPError, httpx.InvalidURL) as error:
            reason = f"the request failed: {error or type(error).__name__}"
        return f"Failed to fetch url: {url} ({reason})"

    def _fetch(self, url: str, deadline: float) -> tuple[str, bytes]:
        current = url
        for hop in range(self.max_redirects + 1):
            try:
                target = parse_target(current)
                with self._open(target, deadline) as response:
                    location = response.headers.get("location")
                    if response.status_code in _REDIRECTS and location:
                        current = urljoin(current, location.strip())
                        continue
                    if not 200 <= response.status_code < 300:
                        phrase = f" {response.reason_phrase}" if response.reason_phrase else ""
                        raise _FetchFailed(f"HTTP status {response.status_code}{phrase}")
                    body = self._read(response, deadline)
                    return response.headers.get("content-type", ""), body
            except RefusedUrl as error:
                if hop == 0:
                    raise
                raise RefusedUrl(f"redirected to {current}, which is refused: {error}") from None
        raise _FetchFailed(f"more than {self.max_redirects} redirects")

    @contextmanager
    def _open(self, target: UrlTarget, deadline: float) -> Iterator[httpx.Response]:
        """The response to GET ``target``, over a connection to a vetted address (or
        through the environment's proxy, after screening the host)."""
        import httpx

        timeout = httpx.Timeout(max(0.001, min(self.timeout, deadline - time.monotonic())))
        proxy = _proxy_for(target)
        if proxy is not None:
            self.policy.screen_proxied(target)
            with (
                httpx.Client(proxy=proxy, trust_env=False, verify=_ssl_context()) as client,
                client.stream("GET", target.url, headers=_HEADERS, timeout=timeout) as response,
            ):
                yield response
            return
        addresses = self.policy.vetted_addresses(target)
        extensions = {"sni_hostname": target.hostname} if target.scheme == "https" else {}
        failure: httpx.TransportError | None = None
        for address in addresses:
            with httpx.Client(trust_env=False, verify=_ssl_context()) as client:
                request = client.build_request(
                    "GET",
                    target.url_for(address),
                    headers={**_HEADERS, "Host": target.host_header},
                    extensions=extensions,
                    timeout=timeout,
                )
                try:
                    response = client.send(request, stream=True)
                except (httpx.ConnectError, httpx.ConnectTimeout) as error:
                    failure = error  # try the host's next address
                    continue
                try:
                    yield response
                finally:
                    response.close()
                return
        assert failure is not None
        raise failure

    def _read(self, response: httpx.Response, deadline: float) -> bytes:
        """The body, refused past ``max_response_bytes`` or ``total_timeout``."""
        too_large = f"the page is larger than {self.max_response_bytes} bytes"
        declared = response.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > self.max_response_bytes:
            raise _FetchFailed(too_large)
        chunks: list[bytes] = []
        size = 0
        for chunk in response.iter_bytes():  # as they arrive: the deadline is checked often
            size += len(chunk)
            if size > self.max_response_bytes:
                raise _FetchFailed(too_large)
            if time.monotonic() > deadline:
                raise _FetchFailed(f"the page did not arrive within {self.total_timeout:g} s")
            chunks.append(chunk)
        return b"".join(chunks)


@cache
def _ssl_context() -> ssl.SSLContext:
    return ssl.create_default_context()


def _proxy_for(target: UrlTarget) -> str | None:
    """The proxy the environment (``HTTPS_PROXY``, ``NO_PROXY``, ...) sets for ``target``."""
    import urllib.request

    proxies = urllib.request.getproxies()
    proxy = proxies.get(target.scheme) or proxies.get("all")
    if not proxy or urllib.request.proxy_bypass(target.hostname):
        return None
    return proxy if "://" in proxy else f"http://{proxy}"


def _page_text(content_type: str, body: bytes) -> str:
    """The text of a page: the lines of more than three words of an HTML page (menus
    and buttons are dropped), a text page (plain, JSON, XML, ...) as it is."""
    from email.message import Message

    header = Message()
    header["content-type"] = content_type or "application/octet-stream"
    mime = header.get_content_type() if content_type else _sniff(body)
    charset = header.get_content_charset()
    if mime in _HTML_TYPES:
        from pyadk.tools._html_text import html_lines

        found = _META_CHARSET.search(body[:2048])
        text = _decode(body, charset or (found.group(1).decode() if found else None))
        return "\n".join(line for line in html_lines(text) if len(line.split()) > 3)
    if mime.startswith("text/") or mime in _TEXT_TYPES or mime.endswith(("+json", "+xml")):
        return _decode(body, charset).strip()
    raise _FetchFailed(f"the page is {mime}, not text")


def _sniff(body: bytes) -> str:
    start = body[:1024]
    if b"\x00" in start and not start.startswith(tuple(bom for bom, _ in _BOMS[1:])):
        return "application/octet-stream"
    head = start.lstrip().lower()
    return "text/html" if head.startswith((b"<!doctype html", b"<html")) else "text/plain"


def _decode(body: bytes, charset: str | None) -> str:
    for bom, encoding in _BOMS:
        if body.startswith(bom):
            charset = encoding
    try:
        return body.decode(charset or "utf-8", errors="replace")
    except LookupError:  # an unknown charset name
        return body.decode("utf-8", errors="replace")


def make_loader(
    allowed_hosts: Iterable[str],
    timeout: float,
    total_timeout: float,
    max_response_bytes: int,
    max_redirects: int,
) -> _WebPageLoader:
    for name, value in (
        ("timeout", timeout),
        ("total_timeout", total_timeout),
        ("max_response_bytes", max_response_bytes),
    ):
        if not value > 0:
            raise ValueError(f"make_load_web_page: {name} must be positive, not {value!r}")
    if max_redirects < 0:
        raise ValueError(f"make_load_web_page: max_redirects must be >= 0, not {max_redirects}")
    return _WebPageLoader(
        HostPolicy(allowed_hosts), timeout, total_timeout, max_response_bytes, max_redirects
    )
