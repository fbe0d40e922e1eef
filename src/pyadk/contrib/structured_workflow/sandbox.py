"""Running untrusted Python in a child process: limits, a clean environment, no network.

The parent side (:func:`run_python_module`) starts ``python -m <module>`` in its own
process group with a minimal environment (no API keys, proxies pointed at a closed
loopback port), feeds it a JSON request on stdin, caps the output it keeps, and kills
the whole group at the timeout. The child side (:func:`enter_sandbox`) applies resource
limits with ``resource.setrlimit`` and installs an audit hook that blocks connections
to non-loopback addresses, DNS look-ups of other hosts, starting processes and raising
the limits again. This is a guard against accidents and careless generated code, not a
security boundary against a determined attacker (use a container or VM for that).
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import json
import os
import signal
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

import pyadk
from pyadk.code_executors._process import CappedBuffer
from pyadk.code_executors._sandbox_child import PROCESS_EVENTS

LIMITS_ENV = "PYADK_SANDBOX_LIMITS"
_PASSTHROUGH_PREFIXES = ("PYADK_", "LLAMA_", "OMP_", "OPENBLAS_", "MKL_")
_PASSTHROUGH = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "VIRTUAL_ENV")
_CLOSED_PROXY = "http://127.0.0.1:9"
_LOOPBACK_NAMES = frozenset({"localhost", "localhost.localdomain", "ip6-localhost"})


class SandboxLimits(BaseModel):
    """Limits of one sandboxed run."""

    timeout: float = Field(default=60.0, gt=0)
    """Seconds of wall time before the process group is killed."""
    memory_mb: int | None = Field(default=4096, gt=0)
    """Address-space limit (RLIMIT_AS); None for no limit."""
    cpu_seconds: int | None = Field(default=None, gt=0)
    """CPU-time limit (RLIMIT_CPU); None: twice the timeout plus 10 s."""
    file_size_mb: int = Field(default=64, gt=0)
    """Largest file the process may write (RLIMIT_FSIZE)."""
    open_files: int = Field(default=512, gt=0)
    """Open file descriptors (RLIMIT_NOFILE)."""
    max_output_chars: int = Field(default=20_000, gt=0)
    """Characters kept of stdout and of stderr each (the rest is dropped)."""
    allow_subprocesses: bool = False
    """Let the code start processes (blocked by default)."""


@dataclass
class ProcessResult:
    """What a sandboxed process did."""

    status: str  # "ok" (exit code 0), "error" or "timeout"
    exit_code: int | None
    stdout: str
    stderr: str
    truncated: bool


def pyadk_path() -> str:
    """The directory holding the ``pyadk`` package (put on the child's PYTHONPATH)."""
    return str(Path(pyadk.__file__).resolve().parent.parent)


def sandbox_env(cwd: str | Path, limits: SandboxLimits | None = None) -> dict[str, str]:
    """A minimal environment: no credentials, proxies closed, HOME and TMPDIR in ``cwd``."""
    env = {k: v for k, v in os.environ.items() if k in _PASSTHROUGH}
    env.update({k: v for k, v in os.environ.items() if k.startswith(_PASSTHROUGH_PREFIXES)})
    env.setdefault("PATH", "/usr/local/bin:/usr/bin:/bin")
    python_path = [pyadk_path()]
    env.update(
        {
            "HOME": str(cwd),
            "TMPDIR": str(cwd),
            "PYTHONPATH": os.pathsep.join(python_path),
            "PYTHONDONTWRITEBYTECODE": "1",
            "PYTHONUNBUFFERED": "1",
            "PYTHONHASHSEED": "0",
            "PYADK_SANDBOX": "1",
        }
    )
    for name in ("http_proxy", "https_proxy", "all_proxy"):
        env[name] = env[name.upper()] = _CLOSED_PROXY
    if limits is not None:
        env[LIMITS_ENV] = limits.model_dump_json()
    return env


class _CappedReader(CappedBuffer):
    """Reads a stream to its end, keeping at most ``cap`` bytes."""

    async def drain(self, stream: asyncio.StreamReader | None) -> None:
        if stream is None:
            return
        while chunk := await stream.read(65536):
            self.add(chunk)


def _kill_group(process: asyncio.subprocess.Process) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)


async def run_process(
    argv: list[str],
    *,
    cwd: str | Path,
    limits: SandboxLimits,
    stdin_data: bytes | None = None,
    env: dict[str, str] | None = None,
) -> ProcessResult:
    """Runs ``argv`` in a new process group with a timeout and capped output."""
    process = await asyncio.create_subprocess_exec(
        *argv,
        cwd=str(cwd),
        env=env if env is not None else sandbox_env(cwd, limits),
        stdin=asyncio.subprocess.PIPE if stdin_data is not None else asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        start_new_session=True,
    )
    out, err = _CappedReader(limits.max_output_chars), _CappedReader(limits.max_output_chars)

    async def communicate() -> int:
        if stdin_data is not None and process.stdin is not None:
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                process.stdin.write(stdin_data)
                await process.stdin.drain()
            process.stdin.close()
        await asyncio.gather(out.drain(process.stdout), err.drain(process.stderr))
        return await process.wait()

    status = "ok"
    exit_code: int | None = None
    try:
        exit_code = await asyncio.wait_for(communicate(), timeout=limits.timeout)
        if exit_code != 0:
            status = "error"
    except TimeoutError:
        status = "timeout"
        _kill_group(process)
        with contextlib.suppress(Exception):
            exit_code = await asyncio.wait_for(process.wait(), timeout=5)
    except BaseException:
        _kill_group(process)
        raise
    finally:
        if process.returncode is None:
            _kill_group(process)
    return ProcessResult(status, exit_code, out.text(), err.text(), out.truncated or err.truncated)


async def run_python_module(
    module: str, request: dict[str, Any], *, cwd: str | Path, limits: SandboxLimits
) -> ProcessResult:
    """Runs ``python -m module`` sandboxed, with ``request`` as JSON on its stdin."""
    argv = [sys.executable, "-m", module]
    data = json.dumps(request).encode()
    return await run_process(argv, cwd=cwd, limits=limits, stdin_data=data)


# -- the child side ------------------------------------------------------------------------
def _is_local_host(host: Any) -> bool:
    if host is None:
        return True
    if isinstance(host, bytes):
        host = host.decode(errors="replace")
    if not isinstance(host, str):
        return False
    if host.lower() in _LOOPBACK_NAMES or host == "":
        return True
    try:
        return ipaddress.ip_address(host.split("%")[0]).is_loopback
    except ValueError:
        return False


def _address_allowed(address: Any) -> bool:
    if isinstance(address, str | bytes):  # AF_UNIX
        return True
    if isinstance(address, tuple) and address:
        return _is_local_host(address[0])
    return False


class SandboxViolation(PermissionError):
    """The sandboxed code tried something the sandbox blocks."""


def _audit_hook(allow_subprocesses: bool) -> Any:
    def hook(event: str, args: tuple[Any, ...]) -> None:
        if event in ("socket.connect", "socket.sendto") and not _address_allowed(args[1]):
            raise SandboxViolation(f"network access to {args[1]!r} is blocked in the sandbox")
        if event in ("socket.getaddrinfo", "socket.gethostbyname", "socket.gethostbyname_ex"):
            if not _is_local_host(args[0]):
                raise SandboxViolation(f"looking up host {args[0]!r} is blocked in the sandbox")
        elif event in ("resource.setrlimit", "resource.prlimit"):
            raise SandboxViolation("changing resource limits is blocked in the sandbox")
        elif event in PROCESS_EVENTS and not allow_subprocesses:
            raise SandboxViolation(f"starting processes ({event}) is blocked in the sandbox")

    return hook


def apply_limits(limits: SandboxLimits) -> None:
    """Sets this process's resource limits (soft and hard)."""
    import resource

    mb = 1024 * 1024
    cpu = limits.cpu_seconds or int(limits.timeout * 2 + 10)
    settings = [
        (resource.RLIMIT_CPU, cpu),
        (resource.RLIMIT_FSIZE, limits.file_size_mb * mb),
        (resource.RLIMIT_NOFILE, limits.open_files),
        (resource.RLIMIT_CORE, 0),
    ]
    if limits.memory_mb is not None:
        settings.append((resource.RLIMIT_AS, limits.memory_mb * mb))
    for which, value in settings:
        _soft, hard = resource.getrlimit(which)
        if hard != resource.RLIM_INFINITY:
            value = min(value, hard)
        resource.setrlimit(which, (value, value))


def enter_sandbox(limits: SandboxLimits | None = None) -> SandboxLimits:
    """Applies the limits (from ``$PYADK_SANDBOX_LIMITS`` by default), then blocks
    network, processes and further limit changes for the rest of this process."""
    if limits is None:
        raw = os.environ.get(LIMITS_ENV)
        limits = SandboxLimits.model_validate_json(raw) if raw else SandboxLimits()
    apply_limits(limits)
    sys.addaudithook(_audit_hook(limits.allow_subprocesses))
    return limits
