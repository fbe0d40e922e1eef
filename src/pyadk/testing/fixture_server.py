"""A local HTTP server that answers with canned responses and records every request.

Model adapters are tested with their real SDK clients pointed at this server::

    with FixtureServer() as server:
        server.enqueue(json_response({"choices": [...]}))
        model = OpenAIChat(model="m", base_url=server.base_url + "/v1", api_key="k")
        ...
        body = server.requests[0].json()

Responses are served in the order they were queued, whatever the path. A request with
nothing queued gets a 404 whose message says so. The server listens on 127.0.0.1 on a
free port and runs in a background thread, so it serves any event loop.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

__all__ = [
    "FixtureResponse",
    "FixtureServer",
    "RecordedRequest",
    "json_response",
    "sse_response",
]


@dataclass
class FixtureResponse:
    """One canned HTTP response: a status, headers and a body or a list of chunks.

    With ``chunks`` the body is sent with chunked transfer encoding, one flush per chunk,
    so a streaming client receives the events one by one.
    """

    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""
    chunks: list[bytes] | None = None


@dataclass
class RecordedRequest:
    """A request the server received; ``received_at`` is when (``time.monotonic()``),
    so tests can check the pause a client made between two requests."""

    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: bytes
    received_at: float = field(default_factory=time.monotonic)

    def json(self) -> Any:
        """The body parsed as JSON."""
        return json.loads(self.body or b"null")


def json_response(
    payload: Any, status: int = 200, headers: dict[str, str] | None = None
) -> FixtureResponse:
    """A JSON response."""
    return FixtureResponse(
        status=status,
        headers={"Content-Type": "application/json", **(headers or {})},
        body=json.dumps(payload).encode(),
    )


SseEvent = dict[str, Any] | str | tuple[str, dict[str, Any]]
"""A ``data:`` payload (a dict as JSON, or raw text), or ``(event name, payload)``."""


def sse_response(events: Iterable[SseEvent], status: int = 200) -> FixtureResponse:
    """A ``text/event-stream`` response, one chunk per event."""
    chunks = []
    for event in events:
        name = None
        if isinstance(event, tuple):
            name, event = event
        data = event if isinstance(event, str) else json.dumps(event)
        prefix = f"event: {name}\n" if name else ""
        chunks.append(f"{prefix}data: {data}\n\n".encode())
    return FixtureResponse(
        status=status,
        headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"},
        chunks=chunks,
    )


class FixtureServer:
    """Serves queued :class:`FixtureResponse` objects and records the requests."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        self.requests: list[RecordedRequest] = []
        self._queue: deque[FixtureResponse] = deque()
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer((host, port), _handler_for(self))
        self._httpd.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:<port>``, without a trailing slash."""
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    def enqueue(self, *responses: FixtureResponse) -> None:
        """Adds responses to serve, in order."""
        with self._lock:
            self._queue.extend(responses)

    @property
    def pending(self) -> int:
        """How many queued responses have not been served yet."""
        with self._lock:
            return len(self._queue)

    def reset(self) -> None:
        """Forgets the recorded requests and the queued responses."""
        with self._lock:
            self.requests.clear()
            self._queue.clear()

    def start(self) -> FixtureServer:
        """Starts serving in a background thread."""
        if self._thread is None:
            self._thread = threading.Thread(
                target=self._httpd.serve_forever,
                kwargs={"poll_interval": 0.02},
                name="pyadk-fixture-server",
                daemon=True,
            )
            self._thread.start()
        return self

    def stop(self) -> None:
        """Stops serving and closes the socket."""
        if self._thread is not None:
            self._httpd.shutdown()
            self._thread.join()
            self._thread = None
        self._httpd.server_close()

    def __enter__(self) -> FixtureServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def _next(self, request: RecordedRequest) -> FixtureResponse:
        with self._lock:
            self.requests.append(request)
            if self._queue:
                return self._queue.popleft()
        message = f"fixture server has no response queued for {request.method} {request.path}"
        return json_response({"error": {"message": message, "type": "fixture_error"}}, 404)


def _handler_for(server: FixtureServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _serve(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            url = urlsplit(self.path)
            recorded = RecordedRequest(
                method=self.command,
                path=url.path,
                query=parse_qs(url.query),
                headers={k.lower(): v for k, v in self.headers.items()},
                body=body,
            )
            response = server._next(recorded)
            self.send_response(response.status)
            for name, value in response.headers.items():
                self.send_header(name, value)
            if response.chunks is None:
                self.send_header("Content-Length", str(len(response.body)))
                self.end_headers()
                self.wfile.write(response.body)
                return
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for chunk in [*response.chunks, b""]:
                self.wfile.write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
                self.wfile.flush()

        do_GET = _serve
        do_POST = _serve
        do_PUT = _serve
        do_DELETE = _serve

        def log_message(self, format: str, *args: Any) -> None:
            """Silent: tests read :attr:`FixtureServer.requests` instead."""

    return Handler
