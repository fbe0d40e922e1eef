"""Security of the API server: Host/Origin checks, bearer tokens, body size, user isolation.

Defaults are closed (``docs/server.md``, "Security"):

- **Host check**: only requests whose ``Host`` is a loopback name are served
  (``trusted_hosts``), which defeats DNS rebinding; pass the names a server bound
  elsewhere is reached by, or ``"*"``.
- **Origin check**: a browser request from another origin (an ``Origin`` header that is
  not this server and not in ``allow_origins``) gets 403, even for "simple" requests
  a browser sends without a CORS preflight. CORS headers are only sent for
  ``allow_origins``.
- **Bearer tokens**: with ``auth_token`` set, every API request needs
  ``Authorization: Bearer <token>`` (401 otherwise). A plain string token may act as
  any user (a trusted backend, the dev UI); a mapping ``{token: user_id}`` binds each
  token to one user, who then reaches only their own sessions, runs and artifacts
  (403 for another user id in the path or body). A mapping value ``"*"`` is a
  token for any user.
- **Size limit**: request bodies above ``max_request_bytes`` get 413.
"""

from __future__ import annotations

import hmac
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from fastapi import HTTPException
from starlette.requests import HTTPConnection
from starlette.types import ASGIApp, Message, Receive, Scope, Send

ANY_USER = "*"
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")
DEFAULT_MAX_REQUEST_BYTES = 16 * 1024 * 1024
OPEN_PATHS = ("/health", "/ui-protocol", "/dev-ui")
"""Paths served without a token: they hold no user data."""
_PRINCIPAL_KEY = "pyadk.principal"


@dataclass(frozen=True)
class Principal:
    """Who is calling: ``user_id`` None means any user (no auth, or an any-user token)."""

    user_id: str | None
    authenticated: bool

    def may_act_as(self, user_id: str) -> bool:
        return self.user_id is None or self.user_id == user_id


def normalize_tokens(auth_token: str | Mapping[str, str] | None) -> dict[str, str]:
    """``auth_token`` as ``{token: user_id or "*"}``; empty when auth is off."""
    if auth_token is None:
        return {}
    tokens = {auth_token: ANY_USER} if isinstance(auth_token, str) else dict(auth_token)
    for token, user in tokens.items():
        if not token or not token.strip():
            raise ValueError("auth_token: tokens must be non-empty strings.")
        if not user:
            raise ValueError(f"auth_token: the user of a token must be a user id or {ANY_USER!r}.")
    return tokens


class SecurityMiddleware:
    """ASGI middleware doing the checks listed in the module docstring, in that order."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        tokens: Mapping[str, str],
        allow_origins: Sequence[str],
        trusted_hosts: Sequence[str] | None,
        max_request_bytes: int,
    ) -> None:
        self.app = app
        self.tokens = dict(tokens)
        self.allow_origins = set(allow_origins)
        self.trusted_hosts = None if trusted_hosts is None else {h.lower() for h in trusted_hosts}
        self.max_request_bytes = max_request_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        host = headers.get("host", "")
        problem = self._check_host(host)
        if problem:
            await _reject(scope, send, 400, problem)
            return
        problem = self._check_origin(headers.get("origin"), host)
        if problem:
            await _reject(scope, send, 403, problem)
            return
        path: str = scope.get("path", "")
        principal = self._authenticate(headers.get("authorization"))
        if principal is None and not _is_open(path):
            await _reject(
                scope,
                send,
                401,
                "Missing or invalid bearer token: send 'Authorization: Bearer <token>'.",
                [(b"www-authenticate", b'Bearer realm="pyadk"')],
            )
            return
        scope.setdefault("state", {})[_PRINCIPAL_KEY] = principal or Principal(None, False)
        if scope["type"] == "http" and scope.get("method") in ("POST", "PUT", "PATCH", "DELETE"):
            body = await self._read_body(headers, receive)
            if body is None:
                await _reject(
                    scope,
                    send,
                    413,
                    f"Request body too large: the limit is {self.max_request_bytes} bytes.",
                )
                return
            receive = _replay(body, receive)
        await self.app(scope, receive, send)

    def _check_host(self, host: str) -> str | None:
        if self.trusted_hosts is None or ANY_USER in self.trusted_hosts:
            return None
        name = urlsplit(f"//{host}").hostname if host else None
        if name is None or name.lower() not in self.trusted_hosts:
            return (
                f"Host {host!r} is not trusted by this server "
                f"(trusted: {', '.join(sorted(self.trusted_hosts))})."
            )
        return None

    def _check_origin(self, origin: str | None, host: str) -> str | None:
        if origin is None:
            return None  # not a browser cross-origin request
        if origin in self.allow_origins or ANY_USER in self.allow_origins:
            return None
        if origin != "null" and urlsplit(origin).netloc.lower() == host.lower():
            return None  # same origin (e.g. the dev UI served by this server)
        return (
            f"Origin {origin!r} is not allowed: start the server with "
            f"--allow-origins {origin} to let that site call the API."
        )

    def _authenticate(self, authorization: str | None) -> Principal | None:
        if not self.tokens:
            return Principal(None, False)
        scheme, _, credentials = (authorization or "").partition(" ")
        if scheme.lower() != "bearer" or not credentials.strip():
            return None
        given = credentials.strip().encode()
        match: str | None = None
        for token, user in self.tokens.items():  # compare every token: constant time
            if hmac.compare_digest(token.encode(), given):
                match = user
        if match is None:
            return None
        return Principal(None if match == ANY_USER else match, True)

    async def _read_body(self, headers: Mapping[str, str], receive: Receive) -> bytes | None:
        declared = headers.get("content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.max_request_bytes:
            return None
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                break
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_request_bytes:
                return None
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        return b"".join(chunks)


def _is_open(path: str) -> bool:
    return path == "/" or any(path == p or path.startswith(p + "/") for p in OPEN_PATHS)


def _replay(body: bytes, receive: Receive) -> Receive:
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()  # later calls wait for the client to disconnect

    return replay


async def _reject(
    scope: Scope,
    send: Send,
    status: int,
    message: str,
    extra: Iterable[tuple[bytes, bytes]] = (),
) -> None:
    if scope["type"] == "websocket":
        await send({"type": "websocket.close", "code": 1008, "reason": message[:120]})
        return
    body = json.dumps({"detail": message}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": [*headers, *extra]})
    await send({"type": "http.response.body", "body": body})


def principal_of(request: HTTPConnection) -> Principal:
    """The caller (of a request or a websocket), as authenticated by
    :class:`SecurityMiddleware`."""
    principal: Any = request.scope.get("state", {}).get(_PRINCIPAL_KEY)
    return principal if isinstance(principal, Principal) else Principal(None, False)


def require_any_user(request: HTTPConnection, routes: str) -> None:
    """403 for a token bound to one user: ``routes`` (e.g. "the eval routes") hold every
    user's data."""
    principal = principal_of(request)
    if principal.user_id is not None:
        raise HTTPException(
            status_code=403,
            detail=f"This token belongs to user {principal.user_id!r}: {routes} "
            "need a token for any user.",
        )


def require_user(request: HTTPConnection, user_id: str) -> None:
    """403 (an ``HTTPException``) unless the caller may act as ``user_id``."""
    principal = principal_of(request)
    if not principal.may_act_as(user_id):
        raise HTTPException(
            status_code=403,
            detail=f"This token belongs to user {principal.user_id!r}: it cannot access "
            f"user {user_id!r}.",
        )
