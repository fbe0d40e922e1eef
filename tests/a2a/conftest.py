"""A real uvicorn server on a free 127.0.0.1 port serving ``to_a2a(agent)``."""

from __future__ import annotations

import socket
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from pyadk.a2a.utils.agent_to_a2a import to_a2a
from pyadk.agents.base_agent import BaseAgent

HERE = Path(__file__).parent
for folder in (HERE, HERE.parent / "server"):  # a2a_support, server_support
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))

from server_support import LiveServer  # noqa: E402


@pytest.fixture
def serve_a2a() -> Iterator[Callable[..., str]]:
    """``serve_a2a(agent, **to_a2a_kwargs)`` serves the agent over A2A; returns its card URL."""
    servers: list[LiveServer] = []

    def start(agent: BaseAgent, **kwargs: Any) -> str:
        server = LiveServer(
            app_for_port=lambda port: to_a2a(agent, host="127.0.0.1", port=port, **kwargs)
        )
        servers.append(server.__enter__())
        return f"{server.url}/.well-known/agent-card.json"

    yield start
    for server in reversed(servers):
        server.__exit__()


@pytest.fixture
def closed_port() -> int:
    """A 127.0.0.1 port nothing listens on."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])
