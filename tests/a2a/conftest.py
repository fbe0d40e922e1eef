"""A real uvicorn server on a free 127.0.0.1 port serving ``to_a2a(agent)``."""

from __future__ import annotations

import socket
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import uvicorn

from pyadk.a2a.utils.agent_to_a2a import to_a2a
from pyadk.agents.base_agent import BaseAgent

sys.path.insert(0, str(Path(__file__).parent))  # a2a_support


class _Server:
    def __init__(self, make_app: Callable[[int], Any]) -> None:
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind(("127.0.0.1", 0))
        self.port: int = self._sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        config = uvicorn.Config(
            make_app(self.port), log_level="warning", lifespan="on", timeout_graceful_shutdown=2
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [self._sock]}, daemon=True
        )

    def start(self) -> _Server:
        self._thread.start()
        deadline = time.monotonic() + 20
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.01)
        return self

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=10)
        self._sock.close()


@pytest.fixture
def serve_a2a() -> Iterator[Callable[..., str]]:
    """``serve_a2a(agent, **to_a2a_kwargs)`` serves the agent over A2A; returns its card URL."""
    servers: list[_Server] = []

    def start(agent: BaseAgent, **kwargs: Any) -> str:
        server = _Server(lambda port: to_a2a(agent, host="127.0.0.1", port=port, **kwargs))
        servers.append(server.start())
        return f"{server.url}/.well-known/agent-card.json"

    yield start
    for server in reversed(servers):
        server.stop()


@pytest.fixture
def closed_port() -> int:
    """A 127.0.0.1 port nothing listens on."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])
