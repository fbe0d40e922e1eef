"""SandboxedCodeExecutor: each code block in a locked-down Python subprocess."""

from __future__ import annotations

import functools
import json
import logging
import math
import mimetypes
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import weakref
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import Field, PrivateAttr

from pyadk.code_executors._process import ProcessOutput, run_child
from pyadk.code_executors._sandbox_sessions import SandboxSession, SandboxSessions, SessionLost
from pyadk.code_executors.base_code_executor import BaseCodeExecutor
from pyadk.code_executors.code_execution_utils import (
    CodeExecutionInput,
    CodeExecutionResult,
    File,
    file_bytes,
)

if TYPE_CHECKING:
    from pyadk.agents.invocation_context import InvocationContext

logger = logging.getLogger(__name__)

_CHILD = str(Path(__file__).with_name("_sandbox_child.py"))
_MB = 1024 * 1024
_SIGXCPU = 24


@functools.cache
def namespaces_available() -> bool:
    """True when ``unshare --user --net`` works for this user (no root needed)."""
    unshare = shutil.which("unshare")
    if unshare is None or not sys.platform.startswith("linux"):
        return False
    try:
        probe = subprocess.run(
            [unshare, "--user", "--net", "true"], capture_output=True, timeout=5, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return probe.returncode == 0


class SandboxedCodeExecutor(BaseCodeExecutor):
    """Runs each code block in a fresh Python subprocess, locked down by default.

    The child gets: a new empty temporary working directory (its only writable place,
    removed afterwards), a minimal environment (nothing of ``os.environ``; add variables
    with ``env``), a wall-clock timeout that kills it and everything it started,
    CPU-time, memory, file-size and open-file limits (``setrlimit``), no network (socket
    creation, connections and name look-ups are refused by an audit hook installed before
    the code runs; on Linux, where unprivileged user namespaces are allowed, the child
    also runs in an empty network namespace), no new processes, and capped output.
    Files the code creates or changes in its directory come back as ``output_files``
    (saved as artifacts by the flow).

    Stateless by default: every block starts from nothing. With ``stateful=True`` the
    blocks of one session (``execution_id``) run one after another in one long-lived
    sandboxed process and share variables and the working directory; ``cpu_seconds``
    then counts for the whole session, and a timeout or crash ends the session (the
    next block starts afresh). At most ``max_sessions`` such processes are kept (the
    least recently used is stopped); :meth:`close` stops them all.

    The in-process guards stop accidents and careless code, not code crafted to escape
    (e.g. through ``ctypes``): for hostile code add a container or VM around the agent.
    """

    optimize_data_file: bool = Field(default=False, frozen=True, exclude=True)
    timeout_seconds: float | None = Field(default=30.0, gt=0)
    """Wall-clock seconds one run may take before it is killed."""
    cpu_seconds: int | None = Field(default=None, gt=0)
    """CPU-time limit (None: the timeout rounded up, or 60 s without a timeout)."""
    memory_mb: int | None = Field(default=1024, gt=0)
    """Address-space limit of the child in MiB (None: no limit)."""
    max_file_size_mb: int = Field(default=64, gt=0)
    """Largest file the code may write, in MiB."""
    max_open_files: int = Field(default=256, gt=0)
    max_output_bytes: int = Field(default=64_000, gt=0)
    """Bytes kept of stdout and of stderr each; the rest is dropped with a note."""
    max_output_files: int = Field(default=16, ge=0)
    """Files of the working directory returned as ``output_files`` (0: none)."""
    max_output_file_bytes: int = Field(default=8 * _MB, gt=0)
    """Larger files are left out of ``output_files``."""
    env: dict[str, str] = Field(default_factory=dict)
    """Extra environment variables for the code (nothing else is inherited)."""
    use_namespaces: bool = True
    """Also isolate the network with a user + network namespace where available."""
    max_sessions: int = Field(default=8, gt=0)
    """Stateful sessions (worker processes) kept at once."""

    _sessions: SandboxSessions = PrivateAttr(default_factory=SandboxSessions)

    def __init__(self, **data: Any) -> None:
        if sys.platform == "win32":
            raise NotImplementedError(
                "SandboxedCodeExecutor needs a POSIX system (Linux or macOS): it relies on "
                "resource limits and process groups."
            )
        if data.get("optimize_data_file"):
            raise ValueError(
                "optimize_data_file=True is not supported by pyadk's code executors; pass "
                "data as CodeExecutionInput.input_files instead."
            )
        super().__init__(**data)
        weakref.finalize(self, self._sessions.close)  # at the latest when Python exits

    def execute_code(
        self,
        invocation_context: InvocationContext | None,
        code_execution_input: CodeExecutionInput,
    ) -> CodeExecutionResult:
        """Runs the code in the sandbox (blocking; the flow calls it from a thread)."""
        execution_id = code_execution_input.execution_id
        if self.stateful and execution_id:
            return self._execute_in_session(execution_id, code_execution_input)
        with tempfile.TemporaryDirectory(prefix="pyadk-code-") as workdir:
            _write_input_files(workdir, code_execution_input.input_files)
            before = _file_states(workdir)
            output = run_child(
                self._argv(workdir),
                code=code_execution_input.code,
                env=self._child_env(workdir),
                cwd=workdir,
                timeout=self.timeout_seconds,
                max_output_bytes=self.max_output_bytes,
            )
            files = self._output_files(workdir, before)
        return self._result(output, files)

    def close(self) -> None:
        """Stops the stateful sessions' processes and removes their directories."""
        self._sessions.close()

    def _execute_in_session(
        self, execution_id: str, code_input: CodeExecutionInput
    ) -> CodeExecutionResult:
        session = self._sessions.get(execution_id, self.max_sessions, self._start_session)
        with session.lock:
            _write_input_files(session.path, code_input.input_files)
            before = _file_states(session.path)
            try:
                reply = session.run(code_input.code, self.timeout_seconds)
            except (SessionLost, ValueError) as lost:  # ValueError: a garbled reply
                self._sessions.discard(execution_id, session)
                reason = (
                    lost if isinstance(lost, SessionLost) else "The sandbox's reply was garbled."
                )
                return CodeExecutionResult(
                    stderr=f"{reason} The session's variables are lost: the next block starts "
                    "afresh.",
                    exit_code=session.process.returncode,
                )
            files = self._output_files(session.path, before)
        output = ProcessOutput(
            stdout=reply["stdout"],
            stderr=reply["stderr"],
            exit_code=reply["exit_code"],
            timed_out=False,
            stdout_truncated=reply["stdout_truncated"],
            stderr_truncated=reply["stderr_truncated"],
        )
        return self._result(output, files)

    def _start_session(self) -> SandboxSession:
        workdir = tempfile.TemporaryDirectory(prefix="pyadk-code-")
        process = subprocess.Popen(
            self._argv(workdir.name, serve=True),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=self._child_env(workdir.name),
            cwd=workdir.name,
            start_new_session=True,
        )
        return SandboxSession(process=process, workdir=workdir)

    def _argv(self, workdir: str, *, serve: bool = False) -> list[str]:
        cpu = self.cpu_seconds
        if cpu is None:
            cpu = math.ceil(self.timeout_seconds) + 1 if self.timeout_seconds else 60
        limits = {
            "cpu_seconds": cpu,
            "memory_bytes": self.memory_mb * _MB if self.memory_mb else None,
            "file_size_bytes": self.max_file_size_mb * _MB,
            "open_files": self.max_open_files,
        }
        config = json.dumps(
            {
                "workdir": workdir,
                "limits": limits,
                "serve": serve,
                "max_output_bytes": self.max_output_bytes,
            }
        )
        argv = [sys.executable, "-I", "-B", "-X", "utf8", _CHILD, config]
        if self.use_namespaces and namespaces_available():
            unshare = shutil.which("unshare")
            if unshare is not None:
                argv = [unshare, "--user", "--net", "--", *argv]
        return argv

    def _child_env(self, workdir: str) -> dict[str, str]:
        env = {
            "PATH": "/usr/local/bin:/usr/bin:/bin",
            "HOME": workdir,
            "TMPDIR": workdir,
            "LANG": "C.UTF-8",
            "LC_ALL": "C.UTF-8",
            "OPENBLAS_NUM_THREADS": "1",
            "OMP_NUM_THREADS": "1",
            "MKL_NUM_THREADS": "1",
            "MPLBACKEND": "Agg",
        }
        env.update(self.env)
        return env

    def _output_files(self, workdir: str, before: dict[str, tuple[int, int]]) -> list[File]:
        """Regular files the code created or changed (symlinks are never followed)."""
        files: list[File] = []
        if not self.max_output_files:
            return files
        for relative, state in _file_states(workdir).items():
            if before.get(relative) == state or state[0] > self.max_output_file_bytes:
                continue
            try:
                data = Path(workdir, relative).read_bytes()
            except OSError:
                continue
            mime = mimetypes.guess_type(relative)[0] or "application/octet-stream"
            files.append(File(name=relative, content=data, mime_type=mime))
            if len(files) >= self.max_output_files:
                break
        return files

    def _result(self, output: ProcessOutput, files: list[File]) -> CodeExecutionResult:
        stdout, stderr = output.stdout, output.stderr
        note = f"\n[output truncated: only the first {self.max_output_bytes} bytes are kept]"
        if output.stdout_truncated:
            stdout += note
        if output.stderr_truncated:
            stderr += note
        reason = None
        if output.timed_out:
            reason = f"Code execution timed out after {self.timeout_seconds:g} seconds."
        elif output.exit_code == -_SIGXCPU:
            reason = "Code execution exceeded its CPU-time limit."
        elif output.exit_code == 0:
            stderr = ""  # warnings on stderr do not make a run fail
        elif not stderr:
            reason = f"Code execution exited with status {output.exit_code}."
        if reason:
            stderr = f"{stderr}\n{reason}" if stderr else reason
        return CodeExecutionResult(
            stdout=stdout, stderr=stderr, output_files=files, exit_code=output.exit_code
        )


def _file_states(workdir: str) -> dict[str, tuple[int, int]]:
    """(size, modification time) of each regular file under ``workdir``, by path."""
    states: dict[str, tuple[int, int]] = {}
    for root, dirs, names in os.walk(workdir, followlinks=False):
        dirs.sort()
        for name in sorted(names):
            path = os.path.join(root, name)
            try:
                info = os.lstat(path)
            except OSError:
                continue
            if stat.S_ISREG(info.st_mode):
                states[os.path.relpath(path, workdir)] = (info.st_size, info.st_mtime_ns)
    return states


def _write_input_files(workdir: str, files: list[File]) -> None:
    """Writes the input files into ``workdir``."""
    for file in files:
        name = os.path.basename(file.name)
        if not name or name in (".", ".."):
            raise ValueError(f"Input file name {file.name!r} is not a plain file name.")
        Path(workdir, name).write_bytes(file_bytes(file.content))
