"""Fixtures of the server tests; helpers live in server_support.py (put on sys.path)."""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from server_support import LiveServer, live_servers


@pytest.fixture
def serve() -> Iterator[Callable[[Any], LiveServer]]:
    """``serve(app)`` runs ``app`` on a real uvicorn server; stopped after the test."""
    with live_servers() as start:
        yield start


@pytest.fixture
def gate() -> Iterator[threading.Event]:
    """Holds ``gated_agent``'s tool until set (set at teardown: no thread left waiting)."""
    event = threading.Event()
    yield event
    event.set()
