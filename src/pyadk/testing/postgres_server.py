"""A throwaway PostgreSQL server for tests and benchmarks.

Uses the distribution's server binaries (Debian/Ubuntu: ``apt-get install postgresql``)
to create a cluster in a temporary directory, listening on 127.0.0.1 only, and removes
it afterwards. As root, the server runs as the ``postgres`` system user.
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path


class PostgresNotFoundError(RuntimeError):
    """No PostgreSQL server binaries (initdb, pg_ctl) on this machine."""


def find_postgres_bin() -> Path:
    """The directory holding ``initdb`` and ``pg_ctl``; PostgresNotFoundError if none."""
    candidates = [os.environ.get("PYADK_PG_BIN", "")]
    found = shutil.which("pg_ctl")
    if found:
        candidates.append(str(Path(found).resolve().parent))
    candidates += sorted(
        glob.glob("/usr/lib/postgresql/*/bin"),
        key=lambda p: int(p.split("/")[-2]) if p.split("/")[-2].isdigit() else 0,
        reverse=True,
    )
    for directory in filter(None, candidates):
        if (Path(directory) / "initdb").exists() and (Path(directory) / "pg_ctl").exists():
            return Path(directory)
    raise PostgresNotFoundError(
        "No PostgreSQL server binaries found (initdb, pg_ctl). Install them with "
        "'apt-get install postgresql' or set PYADK_PG_BIN to their directory."
    )


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def throwaway_postgres(*, fsync: bool = True) -> Iterator[str]:
    """Starts a new PostgreSQL cluster; yields its URL (``postgresql://postgres@...``).

    ``fsync=False`` trades durability against power loss for speed (tests only).
    """
    bindir = find_postgres_bin()
    root = Path(tempfile.mkdtemp(prefix="pyadk-pg-"))
    user: str | None = None
    if os.geteuid() == 0:  # initdb refuses to run as root
        import pwd

        try:
            entry = pwd.getpwnam("postgres")
        except KeyError:
            entry = pwd.getpwnam("nobody")
        user = entry.pw_name
        os.chown(root, entry.pw_uid, entry.pw_gid)
    data, log = root / "data", root / "server.log"
    port = _free_port()

    def run(*args: str) -> None:
        subprocess.run(
            [str(bindir / args[0]), *args[1:]],
            check=True,
            capture_output=True,
            user=user,
            cwd=root,
        )

    try:
        run("initdb", "-D", str(data), "-U", "postgres", "--auth=trust", "-E", "UTF8",
            "--no-locale", "--no-sync")  # fmt: skip
        options = f"-p {port} -k {root} -c listen_addresses=127.0.0.1"
        if not fsync:
            options += " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
        try:
            run("pg_ctl", "-D", str(data), "-l", str(log), "-o", options, "-w", "-t", "60",
                "start")  # fmt: skip
        except subprocess.CalledProcessError as exc:
            detail = log.read_text(errors="replace") if log.exists() else ""
            raise RuntimeError(f"PostgreSQL did not start: {exc.stderr!r}\n{detail}") from exc
        try:
            yield f"postgresql://postgres@127.0.0.1:{port}/postgres"
        finally:
            with contextlib.suppress(subprocess.CalledProcessError):
                run("pg_ctl", "-D", str(data), "-m", "immediate", "-w", "stop")
    finally:
        shutil.rmtree(root, ignore_errors=True)
