"""Running a Python child process: code on stdin, capped output, a timeout that kills
everything the child started."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
from dataclasses import dataclass
from typing import IO

_KILL_GRACE_SECONDS = 5.0


@dataclass
class ProcessOutput:
    """What a child process printed and how it ended."""

    stdout: str
    stderr: str
    exit_code: int | None
    timed_out: bool
    stdout_truncated: bool
    stderr_truncated: bool


class CappedBuffer:
    """A child's output, kept up to ``cap`` bytes (None: everything); ``truncated``
    says whether more came (shared with the structured workflow's sandbox)."""

    def __init__(self, cap: int | None) -> None:
        self.cap = cap
        self.data = bytearray()
        self.truncated = False

    def add(self, chunk: bytes) -> None:
        """Keeps what still fits of ``chunk``."""
        if self.cap is None:
            self.data += chunk
            return
        room = self.cap - len(self.data)
        if room > 0:
            self.data += chunk[:room]
        if len(chunk) > max(room, 0):
            self.truncated = True

    def text(self) -> str:
        return self.data.decode("utf-8", errors="replace")


class _CappedReader(CappedBuffer, threading.Thread):
    """Reads a pipe to its end in a thread of its own, into a :class:`CappedBuffer`."""

    def __init__(self, stream: IO[bytes], cap: int | None) -> None:
        CappedBuffer.__init__(self, cap)
        threading.Thread.__init__(self, daemon=True)
        self.stream = stream

    def run(self) -> None:
        with contextlib.suppress(OSError, ValueError):
            while chunk := os.read(self.stream.fileno(), 65536):
                self.add(chunk)


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    """Kills the child and whatever it started (it leads its own process group)."""
    if hasattr(os, "killpg"):  # not on Windows: only the child itself is killed
        with contextlib.suppress(ProcessLookupError, PermissionError, OSError):
            os.killpg(process.pid, signal.SIGKILL)
    with contextlib.suppress(OSError):
        process.kill()


def run_child(
    argv: list[str],
    *,
    code: str,
    env: dict[str, str] | None,
    cwd: str | None = None,
    timeout: float | None,
    max_output_bytes: int | None = None,
) -> ProcessOutput:
    """Runs ``argv`` with ``code`` on its stdin; kills its process group at ``timeout``."""
    process = subprocess.Popen(
        argv,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        cwd=cwd,
        start_new_session=True,
    )
    assert process.stdin is not None and process.stdout is not None
    assert process.stderr is not None
    out = _CappedReader(process.stdout, max_output_bytes)
    err = _CappedReader(process.stderr, max_output_bytes)
    out.start()
    err.start()
    timed_out = False
    try:
        with contextlib.suppress(BrokenPipeError, OSError):
            process.stdin.write(code.encode("utf-8"))
        with contextlib.suppress(BrokenPipeError, OSError):
            process.stdin.close()
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
    finally:
        # Always: a finished child may have left processes behind holding the pipes.
        _kill_group(process)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(_KILL_GRACE_SECONDS)
        out.join(_KILL_GRACE_SECONDS)
        err.join(_KILL_GRACE_SECONDS)
        for stream in (process.stdout, process.stderr):
            with contextlib.suppress(OSError):
                stream.close()
    return ProcessOutput(
        stdout=out.text(),
        stderr=err.text(),
        exit_code=process.returncode,
        timed_out=timed_out,
        stdout_truncated=out.truncated,
        stderr_truncated=err.truncated,
    )
