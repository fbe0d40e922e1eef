"""Fixtures of the server tests; helpers live in server_support.py (put on sys.path)."""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from server_support import LiveServer


@pytest.fixture
def serve() -> Iterator[Callable[[Any], LiveServer]]:
    """``serve(app)`` runs ``app`` on a real uvicorn server; stopped after the test."""
    servers: list[LiveServer] = []

    def start(app: Any) -> LiveServer:
        server = LiveServer(app).__enter__()
        servers.append(server)
        return server

    yield start
    for server in reversed(servers):
        server.__exit__(None, None, None)


@pytest.fixture
def gate() -> Iterator[threading.Event]:
    """Holds ``gated_agent``'s tool until set (set at teardown: no thread left waiting)."""
    event = threading.Event()
    yield event
    event.set()
