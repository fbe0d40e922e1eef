"""``load_web_page``: a tool that fetches a url and returns the text of the page.

Only public http(s) hosts are reached (see :mod:`pyadk.tools._url_validator`): the
model cannot make the agent's machine open its own services, a private network or a
cloud metadata endpoint. Each redirect is checked the same way before it is followed.
``make_load_web_page(allowed_hosts=[...])`` builds the same tool for hosts you trust
(a local test server, an intranet), with other limits if needed.

Limits: a page is read up to ``max_response_bytes`` (10 MiB) and within
``total_timeout`` (60 s); ``timeout`` (30 s) bounds connecting and each wait for data;
at most ``max_redirects`` (5) redirects are followed. A page that cannot be fetched
gives ``"Failed to fetch url: <url> (<reason>)"`` instead of raising, so the model can
go on. Needs httpx (the ``web`` extra).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyadk.tools._web_page_loader import _WebPageLoader

__all__ = ["load_web_page", "make_load_web_page"]

DEFAULT_TIMEOUT = 30.0
DEFAULT_TOTAL_TIMEOUT = 60.0
DEFAULT_MAX_RESPONSE_BYTES = 10 * 1024 * 1024
DEFAULT_MAX_REDIRECTS = 5


def load_web_page(url: str) -> str:
    """Fetches the web page at a url and returns the text it contains.

    Args:
      url: The address of the page to read (http or https).

    Returns:
      The text of the page, or a message saying why it could not be fetched.
    """
    return _default_loader().load(url)


@cache
def _default_loader() -> _WebPageLoader:
    # The fetching code (ssl, address checks) is imported on the first fetch only.
    from pyadk.tools._web_page_loader import make_loader

    return make_loader(
        (),
        DEFAULT_TIMEOUT,
        DEFAULT_TOTAL_TIMEOUT,
        DEFAULT_MAX_RESPONSE_BYTES,
        DEFAULT_MAX_REDIRECTS,
    )


def make_load_web_page(
    *,
    allowed_hosts: Iterable[str] = (),
    timeout: float = DEFAULT_TIMEOUT,
    total_timeout: float = DEFAULT_TOTAL_TIMEOUT,
    max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES,
    max_redirects: int = DEFAULT_MAX_REDIRECTS,
) -> Callable[[str], str]:
    """A ``load_web_page`` tool (same name, parameter and description) with other limits.

    Args:
      allowed_hosts: hosts reached although they are not public: hostnames (whatever
        they resolve to), IP addresses (``"127.0.0.1"``) or networks (``"10.0.0.0/8"``).
        ``"127.0.0.1"`` does not allow ``localhost``: list each name you use.
      timeout: seconds to connect, and to wait for each piece of the answer.
      total_timeout: seconds for the whole fetch, redirects included.
      max_response_bytes: a longer page (after decompression) is not read.
      max_redirects: redirects followed (each one checked); 0 follows none.
    """
    from pyadk.tools._web_page_loader import make_loader

    loader = make_loader(allowed_hosts, timeout, total_timeout, max_response_bytes, max_redirects)

    def tool(url: str) -> str:
        return loader.load(url)

    tool.__name__ = tool.__qualname__ = "load_web_page"
    tool.__doc__ = load_web_page.__doc__
    return tool
