"""Runs ``pyadk web`` / ``pyadk api_server`` in a subprocess for a test.

::

    with cli_server("api_server", "agents/", env=env) as server:
        httpx.get(server.url + "/list-apps")

The server listens on a free port of 127.0.0.1; the block starts once ``/list-apps``
answers, and the process is stopped (killed if it hangs) when the block ends. A
server that exits first, or never answers, fails the test with its output.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

READY_ATTEMPTS = 300
"""Polls of ``/list-apps`` (at most ~0.1 s each) before giving up on the server."""
STOP_TIMEOUT = 60.0
"""Seconds a stopped server may take to exit before it is killed (a hang guard)."""

__all__ = ["CliServer", "cli_server", "free_port"]


@dataclass
class CliServer:
    """A running server: its process and base URL."""

    process: subprocess.Popen[str]
    url: str


def free_port() -> int:
    """A TCP port of 127.0.0.1 that is free now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def cli_server(
    *args: str, cwd: Path | str | None = None, env: Mapping[str, str] | None = None
) -> Iterator[CliServer]:
    """``python -m pyadk.cli ARGS --port N``, ready to answer, for the ``with`` block."""
    import httpx

    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "pyadk.cli", *args, "--port", str(port)],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=None if env is None else dict(env),
    )
    server = CliServer(process, f"http://127.0.0.1:{port}")
    try:
        for _ in range(READY_ATTEMPTS):
            if process.poll() is not None:
                output = process.stdout.read() if process.stdout else ""
                pytest.fail(f"server exited with {process.returncode}:\n{output}")
            try:
                httpx.get(server.url + "/list-apps", timeout=0.5)
                break
            except httpx.TransportError:
                time.sleep(0.1)
        else:
            pytest.fail("server did not answer on /list-apps")
        yield server
    finally:
        process.terminate()
        try:
            process.wait(timeout=STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
