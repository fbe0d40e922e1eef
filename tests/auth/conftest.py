"""Fixtures of the OAuth2 tests: a real OAuth2 server (tests/auth/oauth_server.py) on
127.0.0.1, started once per module and reset before each test."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from oauth_server import LiveOAuthServer  # noqa: E402

WEB_SECRET = "web-app-secret-8f2c1d"
ODD_SECRET = "p@ss word:+/="


@pytest.fixture(scope="module")
def _live_oauth_server() -> Iterator[LiveOAuthServer]:
    with LiveOAuthServer() as live:
        live.register("web-app", WEB_SECRET)
        live.register("spa", None)  # a public client
        live.register("svc:odd id", ODD_SECRET)  # needs encoding in Basic credentials
        yield live


@pytest.fixture
def oauth_server(_live_oauth_server: LiveOAuthServer) -> LiveOAuthServer:
    """The live OAuth2 server, with no codes, tokens or switches left by other tests."""
    _live_oauth_server.state.reset()
    return _live_oauth_server
