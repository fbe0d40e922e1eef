"""The child side of SandboxedCodeExecutor: run as a script (``python -I -B``), standard
library only, never imported by pyadk itself.

It reads the program from stdin, applies the resource limits, installs an audit hook
(no sockets except local socket pairs, no name look-ups, no new processes, no raising
the limits, no writes outside the working directory) and only then runs the program.
The hook guards against accidents and careless code; it is not a boundary against code
written to escape it (``ctypes`` can reach the C library directly). The kernel
namespaces the parent adds, where available, are.
"""

from __future__ import annotations

import json
import os
import resource
import socket
import sys
import traceback

TYPE_CHECKING = False  # not typing's: importing typing would slow every run down
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

# The audit events that start a process (also refused by the structured workflow's
# sandbox, pyadk.contrib.structured_workflow.sandbox).
PROCESS_EVENTS = frozenset(
    {
        "subprocess.Popen",
        "os.system",
        "os.posix_spawn",
        "os.exec",
        "os.spawn",
        "os.fork",
        "os.forkpty",
        "pty.spawn",
        "os.startfile",
    }
)
_NETWORK_EVENTS = frozenset(
    {
        "socket.connect",
        "socket.bind",
        "socket.sendto",
        "socket.sendmsg",
        "socket.getaddrinfo",
        "socket.gethostbyname",
        "socket.gethostbyname_ex",
        "socket.gethostbyaddr",
        "socket.getnameinfo",
    }
)
# Events whose first argument is a path the call changes (second: dir_fd or mode).
_PATH_EVENTS = frozenset(
    {
        "os.remove",
        "os.rmdir",
        "os.mkdir",
        "os.chmod",
        "os.chown",
        "os.utime",
        "os.truncate",
        "os.chflags",
        "os.lchflags",
        "os.lchmod",
        "os.setxattr",
        "os.removexattr",
        "shutil.rmtree",
        "shutil.chown",
    }
)
_DIR_FD_LAST = frozenset(
    {"os.remove", "os.rmdir", "os.mkdir", "os.chmod", "os.chown", "os.utime", "shutil.rmtree"}
)
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND


def _apply_limits(limits: dict[str, int | None]) -> None:
    names = {
        "cpu_seconds": resource.RLIMIT_CPU,
        "memory_bytes": resource.RLIMIT_AS,
        "file_size_bytes": resource.RLIMIT_FSIZE,
        "open_files": resource.RLIMIT_NOFILE,
    }
    settings = [(resource.RLIMIT_CORE, 0)]
    settings += [(names[k], v) for k, v in limits.items() if v is not None]
    for which, value in settings:
        _soft, hard = resource.getrlimit(which)
        # CPU: SIGXCPU at the soft limit (reported as such), SIGKILL a second later.
        ceiling = value + 1 if which == resource.RLIMIT_CPU else value
        if hard != resource.RLIM_INFINITY:
            value, ceiling = min(value, hard), min(ceiling, hard)
        try:
            resource.setrlimit(which, (value, ceiling))
        except (ValueError, OSError):  # e.g. RLIMIT_AS on macOS: that limit is not applied
            pass


def _make_guard(workdir: str) -> Callable[[str, tuple[Any, ...]], None]:
    """The audit hook. Everything it uses is bound here, as C functions and locals, so
    that the code cannot change its behaviour by patching modules, builtins or classes
    (its closure is not reachable: the gc look-ups that could find it are refused)."""
    lstat, readlink, getcwd, fspath = os.lstat, os.readlink, os.getcwd, os.fspath
    is_int, is_str, is_bytes = int, str, bytes
    isinstance_, any_, len_, refused = isinstance, any, len, PermissionError
    devnull, af_unix, write_flags = os.devnull, socket.AF_UNIX, _WRITE_FLAGS
    process_events, network_events = PROCESS_EVENTS, _NETWORK_EVENTS
    path_events, dir_fd_last = _PATH_EVENTS, _DIR_FD_LAST
    introspection = frozenset({"gc.get_objects", "gc.get_referrers", "gc.get_referents"})

    def resolve(name: str) -> str:
        """The absolute path with symbolic links resolved (as far as the path exists)."""
        if not name.startswith("/"):
            name = getcwd() + "/" + name
        pending = name.split("/")[::-1]
        resolved = ""
        links = 0
        while pending:
            part = pending.pop()
            if part in ("", "."):
                continue
            if part == "..":
                resolved = resolved.rpartition("/")[0]
                continue
            candidate = resolved + "/" + part
            try:
                mode = lstat(candidate).st_mode
            except OSError:
                resolved = candidate
                continue
            if mode & 0o170000 != 0o120000:
                resolved = candidate
                continue
            links += 1
            if links > 40:
                raise refused("Too many symbolic links in the sandbox.")
            target = readlink(candidate)
            if target.startswith("/"):
                resolved = ""
            pending.extend(target.split("/")[::-1])
        return resolved or "/"

    root = resolve(workdir)

    def text(path: Any) -> str | None:
        try:
            value = fspath(path)
        except TypeError:
            return None
        if isinstance_(value, is_bytes):
            return value.decode("utf-8", "surrogateescape")
        return value if isinstance_(value, is_str) else None

    def check(path: Any, dir_fd: Any = None) -> None:
        if isinstance_(path, is_int):
            return  # an open file: checked when it was opened
        name = text(path)
        if name is None:
            raise refused(f"Cannot check the path {path!r} in the sandbox.")
        if isinstance_(dir_fd, is_int) and dir_fd >= 0 and not name.startswith("/"):
            name = readlink(f"/proc/self/fd/{dir_fd}") + "/" + name
        if name == devnull:
            return
        real = resolve(name)
        if real != root and not real.startswith(root + "/"):
            raise refused(
                f"Writing to {name!r} is not allowed in the sandbox: only the working "
                f"directory {root!r} is writable."
            )

    def guard(event: str, args: tuple[Any, ...]) -> None:
        if event == "open":
            path, mode, flags = args
            if isinstance_(mode, is_str):
                writes = any_(c in mode for c in "wax+")
            else:
                writes = isinstance_(flags, is_int) and flags & write_flags != 0
            if writes:
                check(path)
        elif event == "socket.__new__":
            if args[1] != af_unix:
                raise refused("Network access is disabled in the sandbox.")
        elif event in network_events:
            raise refused("Network access is disabled in the sandbox.")
        elif event in process_events:
            raise refused(f"Starting processes ({event}) is disabled in the sandbox.")
        elif event == "resource.setrlimit" or (event == "resource.prlimit" and args[2] is not None):
            raise refused("Changing resource limits is disabled in the sandbox.")
        elif event in introspection:
            raise refused(f"{event} is disabled in the sandbox.")
        elif event in path_events:
            check(args[0], args[len_(args) - 1] if event in dir_fd_last else None)
        elif event == "os.rename":
            check(args[0], args[2])
            check(args[1], args[3])
        elif event == "os.link":
            check(args[1], args[3])
        elif event == "os.symlink":
            check(args[1], args[2])

    return guard


def _close_process_back_doors() -> None:
    """``_posixsubprocess.fork_exec`` starts processes without an audit event: import
    ``subprocess`` (which keeps a reference) now, then remove both references."""
    import _posixsubprocess
    import subprocess

    for module in (_posixsubprocess, subprocess):
        for name in ("fork_exec", "_fork_exec"):
            if hasattr(module, name):
                delattr(module, name)


def _run(source: str, namespace: dict[str, Any]) -> int:
    """Runs ``source`` in ``namespace``; the exit status (a traceback on stderr for 1)."""
    try:
        exec(compile(source, "<code>", "exec"), namespace)
    except SystemExit as stop:
        code = stop.code
        if code is None or isinstance(code, int):
            return code or 0
        sys.stderr.write(f"{code}\n")
        return 1
    except BaseException as exc:
        tb = exc.__traceback__
        report = traceback.TracebackException(type(exc), exc, tb.tb_next if tb else None)
        # The model should see its own code, not this file's frames (the guard's).
        report.stack = traceback.StackSummary.from_list(
            [frame for frame in report.stack if frame.filename != __file__]
        )
        sys.stderr.write("".join(report.format()))
        if isinstance(exc, MemoryError):
            sys.stderr.write("The sandbox's memory limit was reached.\n")
        return 1
    return 0


class _CappedText:
    """A text stream keeping the first ``cap`` bytes written (stdout of one block)."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.parts: list[bytes] = []
        self.size = 0
        self.truncated = False

    def write(self, text: str) -> int:
        data = text.encode("utf-8", "replace")
        room = self.cap - self.size
        if len(data) > room:
            self.truncated = True
            data = data[: max(room, 0)]
        self.parts.append(data)
        self.size += len(data)
        return len(text)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return False

    def value(self) -> str:
        return b"".join(self.parts).decode("utf-8", "replace")


def _serve(config: dict[str, Any]) -> None:
    """Stateful mode: runs framed blocks from stdin in one namespace until stdin ends.

    A request is ``<length>\\n<source>``; a response, on the process's original stdout,
    ``<length>\\n<json>`` with the block's stdout, stderr and exit status. The code's own
    file descriptors 0-2 point to /dev/null.
    """
    requests = os.fdopen(os.dup(0), "rb")
    responses = os.fdopen(os.dup(1), "wb")
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    sys.stdin = open(os.devnull)  # noqa: SIM115 - the program's stdin: empty
    cap = config["max_output_bytes"]
    _enter(config)
    namespace: dict[str, Any] = {"__name__": "__main__", "__builtins__": __builtins__}
    while header := requests.readline():
        source = requests.read(int(header)).decode("utf-8", "replace")
        out, err = _CappedText(cap), _CappedText(cap)
        sys.stdout, sys.stderr = out, err
        status = _run(source, namespace)
        sys.stdout, sys.stderr = sys.__stdout__, sys.__stderr__
        reply = {
            "stdout": out.value(),
            "stderr": err.value(),
            "exit_code": status,
            "stdout_truncated": out.truncated,
            "stderr_truncated": err.truncated,
        }
        data = json.dumps(reply).encode()
        responses.write(b"%d\n" % len(data) + data)
        responses.flush()


def _enter(config: dict[str, Any]) -> None:
    """Limits, then the guard: from here on the sandbox's rules hold."""
    os.chdir(config["workdir"])
    _apply_limits(config["limits"])
    _close_process_back_doors()
    sys.addaudithook(_make_guard(config["workdir"]))


def main() -> None:
    config = json.loads(sys.argv[1])
    del sys.argv[1:]
    if config.get("serve"):
        _serve(config)
        return
    source = sys.stdin.buffer.read().decode("utf-8", errors="replace")
    sys.stdin = open(os.devnull)  # noqa: SIM115 - the program's stdin: empty
    _enter(config)
    namespace: dict[str, Any] = {"__name__": "__main__", "__builtins__": __builtins__}
    sys.exit(_run(source, namespace))


if __name__ == "__main__":
    main()
