"""SandboxedCodeExecutor: limits, isolation and results of real child processes."""

from __future__ import annotations

import base64
import os
import socket
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from pyadk.code_executors import (
    CodeExecutionInput,
    CodeExecutionResult,
    File,
    SandboxedCodeExecutor,
    UnsafeLocalCodeExecutor,
)
from pyadk.code_executors.sandboxed_code_executor import namespaces_available

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith(("linux", "darwin")), reason="needs POSIX resource limits"
)


def run(code: str, **options: object) -> CodeExecutionResult:
    executor = SandboxedCodeExecutor(**options)  # type: ignore[arg-type]
    return executor.execute_code(None, CodeExecutionInput(code=code))


@pytest.fixture
def listening_port() -> Iterator[int]:
    """A TCP server on 127.0.0.1 that the test process itself can reach."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    stop = threading.Event()

    def accept() -> None:
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                conn, _ = server.accept()
                conn.close()
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield server.getsockname()[1]
    stop.set()
    thread.join()
    server.close()


def test_prints_come_back_on_stdout() -> None:
    result = run("print(1 + 1)")
    assert result == CodeExecutionResult(stdout="2\n", stderr="", output_files=[], exit_code=0)


def test_an_exception_is_reported_on_stderr() -> None:
    result = run("x = 1\nraise KeyError('missing')")
    assert result.exit_code == 1
    assert "KeyError: 'missing'" in result.stderr
    assert 'File "<code>", line 2' in result.stderr


def test_warnings_on_stderr_do_not_fail_a_run() -> None:
    result = run("import sys; sys.stderr.write('careful\\n'); print('ok')")
    assert result.stdout == "ok\n" and result.stderr == ""


def test_a_silent_non_zero_exit_is_a_failure() -> None:
    assert run("import sys; sys.exit(3)").stderr == "Code execution exited with status 3."


def test_timeout_kills_an_infinite_loop() -> None:
    result = run("print('started', flush=True)\nwhile True: pass", timeout_seconds=2)
    assert result.stdout == "started\n"
    assert result.stderr == "Code execution timed out after 2 seconds."


def test_cpu_time_limit() -> None:
    result = run("while True: pass", cpu_seconds=1, timeout_seconds=30)
    assert "CPU-time limit" in result.stderr


@pytest.mark.skipif(sys.platform == "darwin", reason="macOS does not enforce RLIMIT_AS")
def test_memory_limit() -> None:
    result = run("block = bytearray(600 * 1024 * 1024)\nprint('allocated')", memory_mb=256)
    assert result.stdout == ""
    assert "MemoryError" in result.stderr and "memory limit" in result.stderr
    assert run("block = bytearray(50 * 1024 * 1024)\nprint('allocated')").stdout == "allocated\n"


@pytest.mark.parametrize("use_namespaces", [False, True])
def test_connecting_to_localhost_is_refused(listening_port: int, use_namespaces: bool) -> None:
    if use_namespaces and not namespaces_available():
        pytest.skip("unprivileged user namespaces are not available here")
    socket.create_connection(("127.0.0.1", listening_port), timeout=5).close()  # reachable
    code = (
        "import socket\n"
        "s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)\n"
        f"s.connect(('127.0.0.1', {listening_port}))\n"
        "print('connected')"
    )
    result = run(code, use_namespaces=use_namespaces)
    assert "connected" not in result.stdout
    assert "PermissionError: Network access is disabled in the sandbox." in result.stderr


def test_namespaces_leave_only_loopback_where_available() -> None:
    if not namespaces_available():
        pytest.skip("unprivileged user namespaces are not available here")
    result = run("import socket; print([name for _, name in socket.if_nameindex()])")
    assert result.stdout == "['lo']\n"


def test_name_lookups_are_refused() -> None:
    result = run("import socket; socket.getaddrinfo('localhost', 80)")
    assert "Network access is disabled" in result.stderr


def test_writes_outside_the_working_directory_fail(tmp_path: Path) -> None:
    target = tmp_path / "escaped.txt"
    result = run(f"open({str(target)!r}, 'w').write('x')")
    assert "PermissionError: Writing to" in result.stderr
    assert not target.exists()
    victim = tmp_path / "keep.txt"
    victim.write_text("keep")
    for code in (
        f"import os; os.remove({str(victim)!r})",
        f"import os; os.rename({str(victim)!r}, 'stolen.txt')",
        f"import os; os.symlink({str(victim)!r}, 'link'); open('link', 'w').write('x')",
        f"import shutil; shutil.rmtree({str(tmp_path)!r})",
    ):
        assert "not allowed in the sandbox" in run(code).stderr, code
    assert victim.read_text() == "keep"


def test_patching_modules_or_builtins_does_not_lift_the_guard(tmp_path: Path) -> None:
    target = tmp_path / "escaped.txt"
    code = (
        "import builtins, os, posixpath, sys\n"
        "os.path.realpath = posixpath.realpath = lambda path, **kw: os.getcwd()\n"
        "os.fspath = lambda path: 'inside.txt'\n"
        "builtins.isinstance = lambda *args: True\n"
        "sys.modules['__main__'].__dict__.clear()\n"
        f"open({str(target)!r}, 'w').write('x')\n"
    )
    assert "not allowed in the sandbox" in run(code).stderr
    assert not target.exists()
    assert "gc.get_objects is disabled" in run("import gc; gc.get_objects()").stderr


def test_the_process_back_door_is_closed() -> None:
    result = run("import _posixsubprocess; _posixsubprocess.fork_exec")
    assert "AttributeError" in result.stderr


def test_the_working_directory_is_writable_and_removed_afterwards() -> None:
    result = run(
        "import os, tempfile\n"
        "open('a.txt', 'w').write('hi')\n"
        "os.makedirs('sub/dir')\n"
        "with tempfile.NamedTemporaryFile(delete=True) as f: f.write(b'x')\n"
        "print(os.getcwd())",
        max_output_files=0,
    )
    assert result.stderr == ""
    workdir = result.stdout.strip()
    assert Path(workdir).name.startswith("pyadk-code-") and not Path(workdir).exists()


def test_secrets_in_the_environment_are_not_visible(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYADK_TEST_SECRET_KEY", "s3cr3t")
    code = "import os; print(sorted(os.environ)); print(os.environ.get('PYADK_TEST_SECRET_KEY'))"
    result = run(code, env={"GREETING": "hello"})
    assert "s3cr3t" not in result.stdout and "PYADK_TEST_SECRET_KEY" not in result.stdout
    assert "'GREETING'" in result.stdout
    # The unsafe executor, by contrast, passes the agent's environment on.
    unsafe = UnsafeLocalCodeExecutor().execute_code(
        None, CodeExecutionInput(code="import os; print(os.environ['PYADK_TEST_SECRET_KEY'])")
    )
    assert unsafe.stdout == "s3cr3t\n"


def test_huge_output_is_capped() -> None:
    result = run("print('x' * 1_000_000)\nimport sys; print('y' * 1_000_000, file=sys.stderr)")
    assert result.stdout.startswith("x" * 1000)
    assert len(result.stdout) < 70_000
    assert result.stdout.endswith("[output truncated: only the first 64000 bytes are kept]")
    small = run("print('z' * 5000)", max_output_bytes=100)
    assert small.stdout == "z" * 100 + ("\n[output truncated: only the first 100 bytes are kept]")


def test_starting_processes_is_refused() -> None:
    result = run("import subprocess; subprocess.run(['echo', 'hi'])")
    assert "Starting processes (subprocess.Popen) is disabled" in result.stderr
    assert "disabled" in run("import os; os.system('echo hi')").stderr


def test_limits_cannot_be_raised_again() -> None:
    code = "import resource; resource.setrlimit(resource.RLIMIT_CPU, (10**6, 10**6))"
    assert "Changing resource limits is disabled" in run(code).stderr


def test_input_and_output_files(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("host data")
    executor = SandboxedCodeExecutor()
    code = (
        "import os\n"
        "rows = open('data.csv').read().splitlines()\n"
        "open('count.txt', 'w').write(str(len(rows)))\n"
        f"os.symlink({str(secret)!r}, 'leak.txt')\n"
    )
    data = File(
        name="data.csv", content=base64.b64encode(b"a\nb\nc\n").decode(), mime_type="text/csv"
    )
    result = executor.execute_code(None, CodeExecutionInput(code=code, input_files=[data]))
    assert result.stderr == ""
    # Unchanged inputs and symlinks are not outputs.
    assert result.output_files == [File(name="count.txt", content=b"3", mime_type="text/plain")]


def test_unsafe_local_executor_cannot_be_stateful() -> None:
    with pytest.raises(ValueError, match="stateful=True"):
        UnsafeLocalCodeExecutor(stateful=True)


def test_stateful_sessions_keep_variables_and_files_per_execution_id() -> None:
    executor = SandboxedCodeExecutor(stateful=True)
    try:

        def run_in(session: str, code: str) -> CodeExecutionResult:
            return executor.execute_code(None, CodeExecutionInput(code=code, execution_id=session))

        assert run_in("a", "x = 41\nopen('notes.txt', 'w').write('kept')").stderr == ""
        result = run_in("a", "print(x + 1, open('notes.txt').read())")
        assert result.stdout == "42 kept\n" and result.output_files == []  # nothing changed
        assert "NameError" in run_in("b", "print(x)").stderr  # another session
        # Errors, sys.exit and guard refusals do not end the session.
        assert "ZeroDivisionError" in run_in("a", "1/0").stderr
        assert run_in("a", "import sys; sys.exit(2)").exit_code == 2
        assert "disabled" in run_in("a", "import socket; socket.socket()").stderr
        assert run_in("a", "print(x)").stdout == "41\n"
        # Without an execution id, a block runs on its own.
        alone = executor.execute_code(None, CodeExecutionInput(code="print(x)"))
        assert "NameError" in alone.stderr
    finally:
        executor.close()


def test_a_garbled_stateful_reply_ends_the_session() -> None:
    executor = SandboxedCodeExecutor(stateful=True)
    try:
        # The worker answers on a duplicate of its original stdout (fd 4 here: 3 is the
        # requests' duplicate); code writing there garbles the reply.
        code = (
            "import os\nfor fd in (3, 4):\n    try: os.write(fd, b'x\\n')\n    except OSError: pass"
        )
        result = executor.execute_code(None, CodeExecutionInput(code=code, execution_id="s"))
        assert "variables are lost" in result.stderr
        again = executor.execute_code(None, CodeExecutionInput(code="print(1)", execution_id="s"))
        assert again.stdout == "1\n"
    finally:
        executor.close()


def test_a_stateful_session_ends_on_timeout_and_starts_afresh() -> None:
    executor = SandboxedCodeExecutor(stateful=True, timeout_seconds=3)
    try:
        first = CodeExecutionInput(code="x = 1", execution_id="s")
        assert executor.execute_code(None, first).stderr == ""
        loop = CodeExecutionInput(code="while True: pass", execution_id="s")
        result = executor.execute_code(None, loop)
        assert result.stderr.startswith("Code execution timed out after 3 seconds.")
        assert "variables are lost" in result.stderr
        after = executor.execute_code(None, CodeExecutionInput(code="print(x)", execution_id="s"))
        assert "NameError" in after.stderr
    finally:
        executor.close()


def test_stateful_sessions_are_bounded_and_closed() -> None:
    executor = SandboxedCodeExecutor(stateful=True, max_sessions=1)
    where = executor.execute_code(
        None, CodeExecutionInput(code="import os; print(os.getcwd())", execution_id="one")
    )
    workdir = Path(where.stdout.strip())
    assert workdir.exists()
    executor.execute_code(None, CodeExecutionInput(code="pass", execution_id="two"))
    assert not workdir.exists()  # "one" was stopped to make room
    again = executor.execute_code(None, CodeExecutionInput(code="x = 1", execution_id="two"))
    assert again.stderr == ""
    executor.close()
    lost = executor.execute_code(None, CodeExecutionInput(code="print(x)", execution_id="two"))
    assert "NameError" in lost.stderr
    executor.close()


def test_each_run_starts_from_nothing() -> None:
    executor = SandboxedCodeExecutor()
    first = executor.execute_code(None, CodeExecutionInput(code="x = 41\nprint(x)"))
    second = executor.execute_code(None, CodeExecutionInput(code="print(x + 1)"))
    assert first.stdout == "41\n"
    assert "NameError: name 'x' is not defined" in second.stderr


def test_unsafe_local_executor_timeout_and_errors() -> None:
    executor = UnsafeLocalCodeExecutor(timeout_seconds=1)
    result = executor.execute_code(None, CodeExecutionInput(code="while True: pass"))
    assert result.stderr == "Code execution timed out after 1 seconds."
    failed = executor.execute_code(None, CodeExecutionInput(code="1/0"))
    assert "ZeroDivisionError" in failed.stderr and failed.exit_code == 1
    cwd = executor.execute_code(None, CodeExecutionInput(code="import os; print(os.getcwd())"))
    assert cwd.stdout.strip() == os.getcwd()  # runs where the agent runs
