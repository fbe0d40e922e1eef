"""Test support for the server tests: a real uvicorn server on 127.0.0.1 in a thread,
and an SSE parser written from the spec (independent of pyadk.server.sse)."""

from __future__ import annotations

import asyncio
import json
import socket
import ssl
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import uvicorn

from pyadk.agents import LlmAgent
from pyadk.testing import ScriptedModel, Stream, function_call

AGENTS_DIR = Path(__file__).parent / "fixtures" / "agents"
_SSL = ssl.create_default_context()  # built once: httpx builds one per client otherwise


class LiveServer:
    """Serves an ASGI app with uvicorn on a free loopback port, in a daemon thread."""

    def __init__(self, app: Any = None, *, app_for_port: Callable[[int], Any] | None = None):
        """Serves ``app``, or the app ``app_for_port`` makes for the port it gets (an
        app that must know its own address)."""
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        # inherited by accepted connections: no Nagle delay between header and body writes
        self._sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._sock.bind(("127.0.0.1", 0))
        self.port = self._sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        if app_for_port is not None:
            app = app_for_port(self.port)
        config = uvicorn.Config(
            app, log_level="warning", lifespan="on", timeout_graceful_shutdown=2
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [self._sock]}, daemon=True
        )

    def __enter__(self) -> LiveServer:
        self._thread.start()
        deadline = time.monotonic() + 20
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.01)
        return self

    def client(self, **headers: str) -> httpx.Client:
        """An HTTP client for this server (plain HTTP on 127.0.0.1)."""
        return httpx.Client(base_url=self.url, timeout=10, verify=_SSL, headers=headers)

    def __exit__(self, *exc: object) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=10)
        self._sock.close()


@contextmanager
def live_servers() -> Iterator[Callable[[Any], LiveServer]]:
    """``start(app)`` runs ``app`` on a real uvicorn server; all are stopped on exit
    (the ``serve`` fixtures of the server and web UI tests)."""
    servers: list[LiveServer] = []

    def start(app: Any) -> LiveServer:
        server = LiveServer(app).__enter__()
        servers.append(server)
        return server

    try:
        yield start
    finally:
        for server in reversed(servers):
            server.__exit__(None, None, None)


@dataclass
class SseMessage:
    data: str
    id: str | None
    event: str | None

    def json(self) -> Any:
        return json.loads(self.data)


@dataclass
class SseStream:
    messages: list[SseMessage]
    comments: list[str]


def parse_sse_lines(lines: Iterable[str]) -> Iterator[SseMessage | str]:
    """Yields messages and comments (as str) from SSE lines, per the HTML spec:
    ``field: value`` lines, a blank line dispatches, ``:`` starts a comment."""
    data: list[str] = []
    event_id: str | None = None
    event: str | None = None
    for raw in lines:
        line = raw.rstrip("\r\n")
        if line == "":
            if data:
                yield SseMessage("\n".join(data), event_id, event)
            data, event = [], None
            continue
        if line.startswith(":"):
            yield line[1:].strip()
            continue
        field, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if field == "data":
            data.append(value)
        elif field == "id":
            event_id = value
        elif field == "event":
            event = value
    if data:
        yield SseMessage("\n".join(data), event_id, event)


def read_sse(lines: Iterable[str]) -> SseStream:
    messages: list[SseMessage] = []
    comments: list[str] = []
    for item in parse_sse_lines(lines):
        if isinstance(item, str):
            comments.append(item)
        else:
            messages.append(item)
    return SseStream(messages, comments)


def run_body(app: str, user: str, session: str, text: str, **extra: Any) -> dict[str, Any]:
    """An ADK AgentRunRequest body (camelCase)."""
    return {
        "appName": app,
        "userId": user,
        "sessionId": session,
        "newMessage": {"role": "user", "parts": [{"text": text}]},
        **extra,
    }


def gated_agent(gate: threading.Event, *later_replies: str) -> LlmAgent:
    """An agent whose tool waits for ``gate``: its turn holds the session meanwhile.
    It says "Working on it. ", calls ``slow_step``, then answers "All done."; later
    turns get ``later_replies``."""

    async def slow_step(step: str) -> dict:
        """A step that waits for the test.

        Args:
          step: the step name.
        """
        await asyncio.to_thread(gate.wait, 30)
        return {"done": step}

    model = ScriptedModel(
        [
            Stream(["Working on it. ", function_call("slow_step", {"step": "a"})]),
            Stream(["All ", "done."]),
            *later_replies,
        ]
    )
    return LlmAgent(name="worker", model=model, tools=[slow_step])
