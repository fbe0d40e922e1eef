"""The child side of SandboxedCodeExecutor: run as a script (``python -I -B``), standard
library only, never imported by pyadk itself.

It reads the program from stdin, applies the resource limits, installs an audit hook
(no sockets except local socket pairs, no name look-ups, no new processes, no raising
the limits, no writes outside the working directory) and only then runs the program.
The hook guards against accidents and careless code; it is not a boundary against code
written to escape it (``ctypes`` can reach the C library directly). The kernel
namespaces the parent adds, where available, are.
"""

import json
import os
import resource
import socket
import sys
import traceback

_PROCESS_EVENTS = frozenset(
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
        resource.setrlimit(which, (value, ceiling))


class _Guard:
    def __init__(self, workdir: str) -> None:
        self.workdir = os.path.realpath(workdir)

    def _writable(self, path: object, dir_fd: object = None) -> bool:
        if isinstance(path, int):
            return True  # an open file: checked when it was opened
        try:
            name = os.fsdecode(path)  # type: ignore[arg-type]
        except TypeError:
            return False
        if isinstance(dir_fd, int) and dir_fd >= 0 and not os.path.isabs(name):
            base = os.readlink(f"/proc/self/fd/{dir_fd}")
            name = os.path.join(base, name)
        if name == os.devnull:
            return True
        real = os.path.realpath(name)
        return real == self.workdir or real.startswith(self.workdir + os.sep)

    def _refuse_write(self, path: object) -> None:
        raise PermissionError(
            f"Writing to {os.fsdecode(path)!r} is not allowed in the sandbox: only the "  # type: ignore[arg-type]
            f"working directory {self.workdir!r} is writable."
        )

    def __call__(self, event: str, args: tuple[object, ...]) -> None:
        if event == "open":
            path, mode, flags = args
            writes = (
                any(c in mode for c in "wax+")
                if isinstance(mode, str)
                else isinstance(flags, int) and flags & _WRITE_FLAGS
            )
            if writes and not self._writable(path):
                self._refuse_write(path)
        elif event == "socket.__new__":
            if args[1] != socket.AF_UNIX:
                raise PermissionError("Network access is disabled in the sandbox.")
        elif event in _NETWORK_EVENTS:
            raise PermissionError("Network access is disabled in the sandbox.")
        elif event in _PROCESS_EVENTS:
            raise PermissionError(f"Starting processes ({event}) is disabled in the sandbox.")
        elif event == "resource.setrlimit" or (event == "resource.prlimit" and args[2] is not None):
            raise PermissionError("Changing resource limits is disabled in the sandbox.")
        elif event in _PATH_EVENTS:
            dir_fd = args[-1] if event in _DIR_FD_LAST else None
            if not self._writable(args[0], dir_fd):
                self._refuse_write(args[0])
        elif event in ("os.rename", "os.link", "os.symlink"):
            if event == "os.rename":
                src_fd, dst_fd = args[2], args[3]
                targets = [(args[0], src_fd), (args[1], dst_fd)]
            else:
                targets = [(args[1], args[-1] if event == "os.symlink" else args[3])]
            for target, fd in targets:
                if not self._writable(target, fd):
                    self._refuse_write(target)


def _run(source: str) -> None:
    namespace = {"__name__": "__main__", "__builtins__": __builtins__}
    try:
        exec(compile(source, "<code>", "exec"), namespace)
    except SystemExit:
        raise
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
        sys.exit(1)


def main() -> None:
    config = json.loads(sys.argv[1])
    del sys.argv[1:]
    source = sys.stdin.buffer.read().decode("utf-8", errors="replace")
    sys.stdin = open(os.devnull)  # noqa: SIM115 - the program's stdin: empty
    os.chdir(config["workdir"])
    _apply_limits(config["limits"])
    os.path.realpath(".")  # warm up what the hook uses
    sys.addaudithook(_Guard(config["workdir"]))
    _run(source)


if __name__ == "__main__":
    main()
