"""Checks a url a model supplied before anything connects to it (SSRF protection).

A url is refused unless its scheme is http or https and its host is a public address:
names of the local machine or of internal infrastructure (``localhost``, ``*.local``,
``*.internal``, ``metadata.goog``, ...) are refused by name, and every address the host
resolves to must be global (not loopback, private, link-local, multicast, reserved or
unspecified, nor an IPv6 address that embeds such an IPv4 address). The caller connects
to the addresses vetted here, never resolving the name again, so a DNS answer that
changes between the check and the connection cannot redirect it.

``HostPolicy(allowed_hosts)`` lifts the refusal for hosts the developer trusts.
"""

from __future__ import annotations

import ipaddress
import re
import socket
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import urlsplit

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
Network = ipaddress.IPv4Network | ipaddress.IPv6Network

_SCHEMES = {"http": 80, "https": 443}
_BLOCKED_NAMES = frozenset({"localhost", "metadata", "metadata.goog"})
_BLOCKED_SUFFIXES = (".localhost", ".local", ".internal", ".metadata.goog")
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_HOW_TO_ALLOW = "a trusted host can be allowed with make_load_web_page(allowed_hosts=[...])"
_HOSTNAME = re.compile(r"^[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*$")


class RefusedUrl(ValueError):
    """The url may not be fetched; the message says why."""


@dataclass(frozen=True)
class UrlTarget:
    """The parts of an http(s) url needed to connect to a vetted address."""

    url: str
    scheme: str
    hostname: str
    port: int | None
    host_header: str

    def url_for(self, address: Address) -> str:
        """The url with its host replaced by ``address`` (the connection is pinned)."""
        host = f"[{address}]" if address.version == 6 else str(address)
        netloc = host if self.port is None else f"{host}:{self.port}"
        return urlsplit(self.url)._replace(netloc=netloc).geturl()


def parse_target(url: str) -> UrlTarget:
    """Splits an http(s) url; raises :class:`RefusedUrl` for other schemes."""
    parts = urlsplit(url.strip())
    scheme = parts.scheme.lower()
    if scheme not in _SCHEMES:
        shown = f"not {scheme}:" if scheme else "and the url has no scheme"
        raise RefusedUrl(f"only http and https urls can be fetched, {shown}")
    hostname = (parts.hostname or "").rstrip(".")
    if not hostname:
        raise RefusedUrl("the url has no host")
    if not hostname.isascii():
        try:
            hostname = hostname.encode("idna").decode("ascii")
        except UnicodeError:
            raise RefusedUrl(f"the host name {hostname} is not valid") from None
    try:
        port = parts.port
    except ValueError:
        raise RefusedUrl("the url's port is not valid") from None
    host = f"[{hostname}]" if ":" in hostname else hostname
    default = port is None or port == _SCHEMES[scheme]
    netloc = host if port is None else f"{host}:{port}"
    return UrlTarget(
        url=parts._replace(netloc=netloc).geturl(),  # credentials in a url are never sent
        scheme=scheme,
        hostname=hostname,
        port=port,
        host_header=host if default else f"{host}:{port}",
    )


def _ip_literal(hostname: str) -> Address | None:
    try:
        return ipaddress.ip_address(hostname)
    except ValueError:
        return None


def _embedded_ipv4(address: Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 address routes to (mapped, 6to4, NAT64, compatible)."""
    if not isinstance(address, ipaddress.IPv6Address):
        return None
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address.sixtofour is not None:
        return address.sixtofour
    if address in _NAT64:
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    value = int(address)
    if value >> 32 == 0 and value & 0xFFFFFFFF not in (0, 1):
        return ipaddress.IPv4Address(value & 0xFFFFFFFF)
    return None


def _kind(address: Address) -> str:
    if address.is_loopback:
        return "a loopback"
    if address.is_link_local:
        return "a link-local (cloud metadata)"
    if address.is_unspecified:
        return "an unspecified"
    if address.is_multicast:
        return "a multicast"
    if address.is_private:
        return "a private"
    return "a non-public"


def name_refusal(hostname: str) -> str | None:
    """Why ``hostname`` may not be reached by its name alone (a name of the local
    machine or of internal infrastructure), or None."""
    name = hostname.lower().rstrip(".")
    if name in _BLOCKED_NAMES or name.endswith(_BLOCKED_SUFFIXES):
        return f"{hostname} names the local machine or internal infrastructure"
    return None


def address_refusal(address: Address) -> str | None:
    """Why ``address`` may not be reached, or None when it is public."""
    if not address.is_global or address.is_multicast:  # multicast counts as global
        return f"{_kind(address)} address"
    embedded = _embedded_ipv4(address)
    if embedded is not None and not embedded.is_global:
        return f"an address routed to {embedded}, {_kind(embedded)} address"
    return None


def resolve(hostname: str) -> tuple[Address, ...]:
    """The addresses ``hostname`` resolves to (itself for an IP literal), in order."""
    literal = _ip_literal(hostname)
    if literal is not None:
        return (literal,)
    try:
        infos = socket.getaddrinfo(hostname, None, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        raise RefusedUrl(f"the host {hostname} cannot be resolved") from None
    found = [
        ipaddress.ip_address(str(info[4][0]).split("%", 1)[0])
        for info in infos
        if info[0] in (socket.AF_INET, socket.AF_INET6)
    ]
    if not found:
        raise RefusedUrl(f"the host {hostname} cannot be resolved")
    return tuple(dict.fromkeys(found))


class HostPolicy:
    """Which hosts a fetch may reach: public addresses, plus ``allowed_hosts``.

    Each entry of ``allowed_hosts`` is a hostname (``"intranet.example"``: reached
    whatever it resolves to), an IP address (``"127.0.0.1"``) or a network
    (``"10.0.0.0/8"``): reached by IP literal or by any name resolving into it.
    """

    def __init__(self, allowed_hosts: Iterable[str] = ()) -> None:
        names: set[str] = set()
        networks: list[Network] = []
        for entry in [allowed_hosts] if isinstance(allowed_hosts, str) else allowed_hosts:
            text = str(entry).strip().lower().rstrip(".")
            try:
                networks.append(ipaddress.ip_network(text.strip("[]"), strict=False))
                continue
            except ValueError:
                pass
            if not _HOSTNAME.match(text):
                raise ValueError(
                    f"allowed_hosts entry {entry!r} is not a hostname, an IP address or a "
                    "network (a port or a scheme is not part of an entry)"
                )
            names.add(text)
        self.names = frozenset(names)
        self.networks = tuple(networks)

    def _allows_address(self, address: Address) -> bool:
        candidates = [address, _embedded_ipv4(address)]
        return any(
            a is not None and a.version == n.version and a in n
            for a in candidates
            for n in self.networks
        )

    def _check_name(self, hostname: str) -> None:
        reason = name_refusal(hostname)
        if reason is not None:
            raise RefusedUrl(f"{reason}; {_HOW_TO_ALLOW}")

    def _check_address(self, hostname: str, address: Address) -> None:
        if self._allows_address(address):
            return
        reason = address_refusal(address)
        if reason is None:
            return
        if _ip_literal(hostname) is not None:
            raise RefusedUrl(f"{hostname} is {reason}; {_HOW_TO_ALLOW}")
        raise RefusedUrl(f"{hostname} resolves to {address}, {reason}; {_HOW_TO_ALLOW}")

    def vetted_addresses(self, target: UrlTarget) -> tuple[Address, ...]:
        """The addresses to connect to for ``target``; raises :class:`RefusedUrl` when
        the host, or any address it resolves to, may not be reached."""
        allowed_name = target.hostname.lower() in self.names
        if not allowed_name:
            self._check_name(target.hostname)
        addresses = resolve(target.hostname)
        if not allowed_name:
            for address in addresses:
                self._check_address(target.hostname, address)
        return addresses

    def screen_proxied(self, target: UrlTarget) -> None:
        """Checks a host a proxy will resolve: by name, and by the local resolver's
        answer when there is one (the proxy's own resolution cannot be pinned)."""
        if target.hostname.lower() in self.names:
            return
        self._check_name(target.hostname)
        try:
            addresses = resolve(target.hostname)
        except RefusedUrl:
            return  # only the proxy can resolve it (split-horizon DNS): its policy rules
        for address in addresses:
            self._check_address(target.hostname, address)
