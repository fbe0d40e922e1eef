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
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import Field

from pyadk.code_executors._process import ProcessOutput, run_child
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
    Files the code leaves in its directory come back as ``output_files`` (saved as
    artifacts by the flow).

    The in-process guards stop accidents and careless code, not code crafted to escape
    (e.g. through ``ctypes``): for hostile code add a container or VM around the agent.
    Not stateful: every block starts from nothing (``stateful=True`` raises).
    """

    stateful: bool = Field(default=False, frozen=True, exclude=True)
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

    def __init__(self, **data: Any) -> None:
        if data.get("stateful"):
            raise ValueError(
                "SandboxedCodeExecutor cannot be stateful: every code block runs in a new "
                "process. Keep stateful=False (the model can recompute or write files)."
            )
        if data.get("optimize_data_file"):
            raise ValueError(
                "optimize_data_file=True is not supported by pyadk's code executors; pass "
                "data as CodeExecutionInput.input_files instead."
            )
        super().__init__(**data)

    def execute_code(
        self,
        invocation_context: InvocationContext | None,
        code_execution_input: CodeExecutionInput,
    ) -> CodeExecutionResult:
        """Runs the code in the sandbox (blocking; the flow calls it from a thread)."""
        with tempfile.TemporaryDirectory(prefix="pyadk-code-") as workdir:
            inputs = _write_input_files(workdir, code_execution_input.input_files)
            output = run_child(
                self._argv(workdir),
                code=code_execution_input.code,
                env=self._child_env(workdir),
                cwd=workdir,
                timeout=self.timeout_seconds,
                max_output_bytes=self.max_output_bytes,
            )
            files = self._output_files(workdir, inputs)
        return self._result(output, files)

    def _argv(self, workdir: str) -> list[str]:
        cpu = self.cpu_seconds
        if cpu is None:
            cpu = math.ceil(self.timeout_seconds) + 1 if self.timeout_seconds else 60
        limits = {
            "cpu_seconds": cpu,
            "memory_bytes": self.memory_mb * _MB if self.memory_mb else None,
            "file_size_bytes": self.max_file_size_mb * _MB,
            "open_files": self.max_open_files,
        }
        config = json.dumps({"workdir": workdir, "limits": limits})
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

    def _output_files(self, workdir: str, inputs: dict[str, bytes]) -> list[File]:
        """Regular files the code left in its directory (symlinks are never followed)."""
        files: list[File] = []
        if not self.max_output_files:
            return files
        for root, dirs, names in os.walk(workdir, followlinks=False):
            dirs.sort()
            for name in sorted(names):
                path = os.path.join(root, name)
                relative = os.path.relpath(path, workdir)
                try:
                    info = os.lstat(path)
                    if not stat.S_ISREG(info.st_mode) or info.st_size > self.max_output_file_bytes:
                        continue
                    data = Path(path).read_bytes()
                except OSError:
                    continue
                if inputs.get(relative) == data:
                    continue  # an input file, unchanged
                mime = mimetypes.guess_type(name)[0] or "application/octet-stream"
                files.append(File(name=relative, content=data, mime_type=mime))
                if len(files) >= self.max_output_files:
                    return files
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


def _write_input_files(workdir: str, files: list[File]) -> dict[str, bytes]:
    """Writes the input files into ``workdir``; returns their contents by name."""
    written: dict[str, bytes] = {}
    for file in files:
        name = os.path.basename(file.name)
        if not name or name in (".", ".."):
            raise ValueError(f"Input file name {file.name!r} is not a plain file name.")
        data = file_bytes(file.content)
        Path(workdir, name).write_bytes(data)
        written[name] = data
    return written
