"""Stateful sandbox sessions: one long-lived sandboxed worker process per execution id,
running the blocks of that id one after another in one namespace."""

from __future__ import annotations

import contextlib
import json
import os
import selectors
import signal
import subprocess
import tempfile
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


class SessionLost(Exception):
    """The worker ended or timed out: the session's variables are gone."""

    def __init__(self, message: str, *, timed_out: bool = False) -> None:
        super().__init__(message)
        self.timed_out = timed_out


@dataclass
class SandboxSession:
    """A running worker, its working directory and the file state seen after each run."""

    process: subprocess.Popen[bytes]
    workdir: tempfile.TemporaryDirectory[str]
    lock: threading.Lock = field(default_factory=threading.Lock)
    files: dict[str, tuple[int, int]] = field(default_factory=dict)
    buffer: bytearray = field(default_factory=bytearray)

    @property
    def path(self) -> str:
        return self.workdir.name

    def run(self, code: str, timeout: float | None) -> dict[str, Any]:
        """Sends one block and waits for its reply (SessionLost when there is none)."""
        data = code.encode("utf-8")
        assert self.process.stdin is not None
        try:
            self.process.stdin.write(b"%d\n" % len(data) + data)
            self.process.stdin.flush()
        except OSError:
            raise SessionLost(self._ended()) from None
        header = self._read_line(timeout)
        reply = json.loads(self._read_exactly(int(header), timeout))
        assert isinstance(reply, dict)
        return reply

    def _read_line(self, timeout: float | None) -> bytes:
        deadline = None if timeout is None else time.monotonic() + timeout
        while b"\n" not in self.buffer:
            self._fill(deadline, timeout)
        line, _, rest = bytes(self.buffer).partition(b"\n")
        self.buffer[:] = rest
        return line

    def _read_exactly(self, size: int, timeout: float | None) -> bytes:
        deadline = None if timeout is None else time.monotonic() + timeout
        while len(self.buffer) < size:
            self._fill(deadline, timeout)
        data = bytes(self.buffer[:size])
        del self.buffer[:size]
        return data

    def _fill(self, deadline: float | None, timeout: float | None) -> None:
        stdout = self.process.stdout
        assert stdout is not None
        with selectors.DefaultSelector() as selector:
            selector.register(stdout, selectors.EVENT_READ)
            left = None if deadline is None else max(deadline - time.monotonic(), 0)
            if not selector.select(left):
                raise SessionLost(
                    f"Code execution timed out after {timeout:g} seconds.", timed_out=True
                )
        chunk = os.read(stdout.fileno(), 65536)
        if not chunk:
            raise SessionLost(self._ended())
        self.buffer += chunk

    def _ended(self) -> str:
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(2)
        status = self.process.returncode
        if status == -signal.SIGXCPU:
            return "Code execution exceeded its CPU-time limit."
        return f"The sandbox process ended (status {status})."

    def stop(self) -> None:
        """Kills the worker (and what it started) and removes its directory."""
        with contextlib.suppress(ProcessLookupError, PermissionError, OSError):
            os.killpg(self.process.pid, signal.SIGKILL)
        with contextlib.suppress(OSError):
            self.process.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(5)
        for stream in (self.process.stdin, self.process.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
        with contextlib.suppress(OSError):
            self.workdir.cleanup()


class SandboxSessions:
    """The live sessions of one executor, at most ``limit`` (least recently used stop)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._sessions: OrderedDict[str, SandboxSession] = OrderedDict()

    def get(
        self, execution_id: str, limit: int, start: Callable[[], SandboxSession]
    ) -> SandboxSession:
        """The session of ``execution_id``, started with ``start`` when there is none."""
        stopped: list[SandboxSession] = []
        with self._lock:
            session = self._sessions.get(execution_id)
            if session is not None and session.process.poll() is None:
                self._sessions.move_to_end(execution_id)
                return session
            if session is not None:
                stopped.append(self._sessions.pop(execution_id))
            session = start()
            self._sessions[execution_id] = session
            while len(self._sessions) > limit:
                stopped.append(self._sessions.popitem(last=False)[1])
        for old in stopped:
            old.stop()
        return session

    def discard(self, execution_id: str, session: SandboxSession) -> None:
        """Stops ``session`` and forgets it (if it is still the one of the id)."""
        with self._lock:
            if self._sessions.get(execution_id) is session:
                del self._sessions[execution_id]
        session.stop()

    def close(self) -> None:
        """Stops every session."""
        with self._lock:
            sessions = list(self._sessions.values())
            self._sessions.clear()
        for session in sessions:
            session.stop()
