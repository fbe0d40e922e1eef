"""A small but real OAuth2 authorization server for the tests, written from RFC 6749
and RFC 7636 (not from pyadk): ``/authorize`` (the user consents at once, or refuses when
``deny`` is set), ``/token`` (authorization_code with client_secret_post, client_secret_basic
or PKCE for public clients; refresh_token; client_credentials) and a protected ``/api/me``.
:class:`LiveOAuthServer` serves it with uvicorn on a free 127.0.0.1 port in a thread."""

from __future__ import annotations

import base64
import hashlib
import secrets
import socket
import threading
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote, urlencode

import uvicorn
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, RedirectResponse, Response


@dataclass
class Client:
    client_id: str
    secret: str | None  # None: a public client, which must use PKCE
    redirect_uris: list[str]


@dataclass
class Grant:
    client_id: str
    redirect_uri: str | None
    scope: str
    code_challenge: str | None


@dataclass
class OAuthServer:
    """The server's state; tests read what it saw and flip its switches."""

    clients: dict[str, Client] = field(default_factory=dict)
    codes: dict[str, Grant] = field(default_factory=dict)
    access_tokens: dict[str, tuple[str, str, float]] = field(default_factory=dict)
    refresh_tokens: dict[str, tuple[str, str]] = field(default_factory=dict)
    authorize_requests: list[dict[str, str]] = field(default_factory=list)
    token_requests: list[dict[str, Any]] = field(default_factory=list)
    expires_in: int = 3600
    rotate_refresh_tokens: bool = False
    deny: bool = False  # the user refuses consent
    echo_secret_in_errors: bool = False  # a careless server that repeats what it got
    form_encoded: bool = False  # token responses as a form, as some old servers answer
    fail_token_requests: bool = False  # the token endpoint is down (HTTP 503)

    def reset(self) -> None:
        self.codes.clear()
        self.access_tokens.clear()
        self.refresh_tokens.clear()
        self.authorize_requests.clear()
        self.token_requests.clear()
        self.expires_in = 3600
        self.rotate_refresh_tokens = False
        self.deny = False
        self.echo_secret_in_errors = False
        self.form_encoded = False
        self.fail_token_requests = False

    def issue(self, client_id: str, scope: str, *, refresh: bool) -> dict[str, Any]:
        access = "at-" + secrets.token_urlsafe(16)
        self.access_tokens[access] = (client_id, scope, time.time() + self.expires_in)
        body: dict[str, Any] = {
            "access_token": access,
            "token_type": "Bearer",
            "expires_in": self.expires_in,
            "scope": scope,
        }
        if refresh:
            token = "rt-" + secrets.token_urlsafe(16)
            self.refresh_tokens[token] = (client_id, scope)
            body["refresh_token"] = token
        return body


def _error(status: int, error: str, description: str, **headers: str) -> JSONResponse:
    return JSONResponse(
        {"error": error, "error_description": description},
        status_code=status,
        headers={"Cache-Control": "no-store", **headers},
    )


def make_app(server: OAuthServer) -> FastAPI:
    app = FastAPI()

    def tokens(body: dict[str, Any]) -> Response:
        if server.form_encoded:
            return Response(urlencode(body), media_type="application/x-www-form-urlencoded")
        return JSONResponse(body, headers={"Cache-Control": "no-store"})

    @app.get("/authorize")
    async def authorize(request: Request) -> Any:
        params = dict(request.query_params)
        server.authorize_requests.append(params)
        client = server.clients.get(params.get("client_id", ""))
        if client is None:  # never redirect to an unverified client (RFC 6749 4.1.2.1)
            return _error(400, "invalid_request", "unknown client_id")
        redirect_uri = params.get("redirect_uri") or client.redirect_uris[0]
        if redirect_uri not in client.redirect_uris:
            return _error(400, "invalid_request", "redirect_uri is not registered")

        def back(**answer: str) -> RedirectResponse:
            if "state" in params:
                answer["state"] = params["state"]
            return RedirectResponse(f"{redirect_uri}?{urlencode(answer)}", status_code=302)

        if params.get("response_type") != "code":
            return back(error="unsupported_response_type")
        challenge = params.get("code_challenge")
        if challenge and params.get("code_challenge_method", "plain") != "S256":
            return back(error="invalid_request", error_description="only S256 is supported")
        if client.secret is None and not challenge:
            return back(error="invalid_request", error_description="public clients need PKCE")
        if server.deny:
            return back(error="access_denied", error_description="the user said no")
        code = "code-" + secrets.token_urlsafe(16)
        server.codes[code] = Grant(
            client.client_id,
            params.get("redirect_uri"),
            params.get("scope", ""),
            challenge,
        )
        return back(code=code)

    @app.get("/callback")
    async def callback(request: Request) -> dict[str, str]:
        return dict(request.query_params)

    @app.post("/token")
    async def token(request: Request) -> Any:
        form = {key: str(value) for key, value in (await request.form()).items()}
        header = request.headers.get("authorization", "")
        seen: dict[str, Any] = {"form": form, "auth": "none"}
        server.token_requests.append(seen)
        if server.fail_token_requests:
            return _error(503, "temporarily_unavailable", "the token service is down")
        client_id = form.get("client_id")
        secret = form.get("client_secret")
        if header.lower().startswith("basic "):
            if secret is not None:
                return _error(400, "invalid_request", "more than one client authentication")
            try:
                decoded = base64.b64decode(header[6:]).decode()
                basic_id, basic_secret = (unquote(part) for part in decoded.split(":", 1))
            except ValueError:
                return _error(400, "invalid_request", "malformed Basic credentials")
            if client_id not in (None, basic_id):
                return _error(400, "invalid_request", "client_id differs from Basic user")
            client_id, secret, seen["auth"] = basic_id, basic_secret, "basic"
        elif secret is not None:
            seen["auth"] = "post"
        client = server.clients.get(client_id or "")
        if client is None or (client.secret is not None and secret != client.secret):
            description = "client authentication failed"
            if server.echo_secret_in_errors:
                description += f" for secret {secret!r}"
            extra = {"WWW-Authenticate": 'Basic realm="token"'} if seen["auth"] == "basic" else {}
            return _error(401, "invalid_client", description, **extra)
        if client.secret is None and secret:
            return _error(401, "invalid_client", "public clients have no secret")

        grant_type = form.get("grant_type")
        if grant_type == "authorization_code":
            grant = server.codes.pop(form.get("code", ""), None)  # single use
            if grant is None or grant.client_id != client.client_id:
                return _error(400, "invalid_grant", "unknown, used or foreign code")
            if grant.redirect_uri is not None and form.get("redirect_uri") != grant.redirect_uri:
                return _error(400, "invalid_grant", "redirect_uri differs from the request's")
            if grant.code_challenge is not None:
                verifier = form.get("code_verifier", "")
                digest = hashlib.sha256(verifier.encode()).digest()
                computed = base64.urlsafe_b64encode(digest).rstrip(b"=").decode()
                if not verifier or computed != grant.code_challenge:
                    return _error(400, "invalid_grant", "PKCE verification failed")
            body = server.issue(client.client_id, grant.scope, refresh=True)
            body["id_token"] = "id-" + secrets.token_urlsafe(8)
            return tokens(body)
        if grant_type == "refresh_token":
            held = server.refresh_tokens.get(form.get("refresh_token", ""))
            if held is None or held[0] != client.client_id:
                return _error(400, "invalid_grant", "unknown refresh token")
            body = server.issue(client.client_id, held[1], refresh=server.rotate_refresh_tokens)
            if server.rotate_refresh_tokens:
                server.refresh_tokens.pop(form["refresh_token"])
            return tokens(body)
        if grant_type == "client_credentials":
            if client.secret is None:
                return _error(400, "unauthorized_client", "public clients cannot")
            body = server.issue(client.client_id, form.get("scope", ""), refresh=False)
            return tokens(body)
        return _error(400, "unsupported_grant_type", f"grant_type {grant_type!r}")

    @app.get("/api/me")
    async def me(request: Request) -> Any:
        header = request.headers.get("authorization", "")
        held = server.access_tokens.get(header[7:]) if header.startswith("Bearer ") else None
        if held is None or held[2] < time.time():
            return JSONResponse(
                {"detail": "invalid token"},
                status_code=401,
                headers={"WWW-Authenticate": 'Bearer error="invalid_token"'},
            )
        return {"sub": "user-1", "client_id": held[0], "scope": held[1]}

    return app


class LiveOAuthServer:
    """The OAuth2 server on a free 127.0.0.1 port, run by uvicorn in a daemon thread
    (a context manager: stopped and joined on exit)."""

    def __init__(self) -> None:
        self.state = OAuthServer()
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self._sock.getsockname()[1]}"
        config = uvicorn.Config(make_app(self.state), log_level="warning", lifespan="off")
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [self._sock]}, daemon=True
        )

    def register(self, client_id: str, secret: str | None, *redirect_uris: str) -> Client:
        client = Client(client_id, secret, list(redirect_uris) or [f"{self.url}/callback"])
        self.state.clients[client_id] = client
        return client

    def __enter__(self) -> LiveOAuthServer:
        self._thread.start()
        deadline = time.monotonic() + 20
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the OAuth2 test server did not start")
            time.sleep(0.01)
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=10)
        self._sock.close()
