"""run_agent_file: generated agents run in a child process with limits and no network."""

from __future__ import annotations

import os
import socket
import textwrap
from pathlib import Path

import pytest
from sandbox_models import ref
from workflow_fakes import ADD_AGENT

from pyadk.contrib.structured_workflow.sandbox import SandboxLimits
from pyadk.contrib.structured_workflow.tools import run_agent_file


def write(tmp_path: Path, code: str) -> Path:
    path = tmp_path / "agent.py"
    path.write_text(textwrap.dedent(code), encoding="utf-8")
    return path


async def test_run_prints_a_transcript_with_the_sandbox_model(tmp_path: Path) -> None:
    result = await run_agent_file(write(tmp_path, ADD_AGENT), "Add 2 and 3", model="echo")
    assert result.status == "ok" and result.exit_code == 0
    lines = result.transcript.splitlines()
    assert lines[0] == "[user] Add 2 and 3"
    assert "[adder] echo: Add 2 and 3" in lines
    assert lines[-1] == "RUN COMPLETED: 1 events; final response: echo: Add 2 and 3"
    assert result.as_log().startswith("status: ok (exit code 0)\n--- transcript ---")


async def test_transcript_shows_tool_calls_results_and_state(tmp_path: Path) -> None:
    code = ADD_AGENT.replace("tools=[add])", 'tools=[add], output_key="answer")')
    result = await run_agent_file(write(tmp_path, code), "go", model=ref("tool_caller"))
    assert result.status == "ok", result.as_log()
    assert '[adder] call add({"a": 2, "b": 3})' in result.transcript
    assert '[adder] add returned {"result": 5}' in result.transcript
    assert "[adder] All done." in result.transcript
    assert '[state] {"answer": "All done."}' in result.transcript


async def test_models_named_by_string_are_replaced(tmp_path: Path) -> None:
    code = ADD_AGENT.replace('name="adder"', 'name="adder", model="gemini-2.0-flash"')
    result = await run_agent_file(write(tmp_path, code), "hi", model="echo")
    assert "[adder] echo: hi" in result.transcript, result.as_log()


async def test_file_without_root_agent_is_a_load_failure(tmp_path: Path) -> None:
    result = await run_agent_file(write(tmp_path, "x = 1\n"), "hi", model="echo")
    assert result.status == "error" and result.exit_code == 2
    assert "LOAD FAILED: LookupError: the file defines no module-level variable root_agent" in (
        result.transcript
    )


async def test_error_at_import_is_reported_with_its_traceback(tmp_path: Path) -> None:
    code = "from pyadk.agents import LlmAgent\nroot_agent = LlmAgent(name='a', tools=[nope])\n"
    result = await run_agent_file(write(tmp_path, code), "hi", model="echo")
    assert result.exit_code == 2
    assert "LOAD FAILED: NameError: name 'nope' is not defined" in result.transcript
    assert 'agent.py", line 2' in result.transcript
    # Only the generated file's frames: the loader's would distract the model reading it.
    assert "_loading.py" not in result.transcript and "<frozen" not in result.transcript


async def test_error_during_the_run_is_reported(tmp_path: Path) -> None:
    result = await run_agent_file(write(tmp_path, ADD_AGENT), "hi", model=ref("failing"))
    assert result.status == "error" and result.exit_code == 1
    assert "[adder] outcome failure: model exploded" in result.transcript
    assert "RUN FAILED after 1 events: RuntimeError: model exploded" in result.transcript


async def test_timeout_kills_the_process(tmp_path: Path) -> None:
    code = f"""
    import os, time
    open({str(tmp_path / "pid")!r}, "w").write(str(os.getpid()))
    time.sleep(60)
    """
    limits = SandboxLimits(timeout=2)
    result = await run_agent_file(write(tmp_path, code), "hi", model="echo", limits=limits)
    assert result.status == "timeout"
    assert "RUN TIMED OUT after 2 s" in result.transcript
    pid = int((tmp_path / "pid").read_text())
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


async def test_network_to_other_hosts_is_blocked(tmp_path: Path) -> None:
    # The audit hook fires before the connect system call: nothing leaves the machine.
    code = """
    import socket
    socket.socket().connect(("192.0.2.1", 80))
    """
    result = await run_agent_file(write(tmp_path, code), "hi", model="echo")
    assert "SandboxViolation: network access to ('192.0.2.1', 80) is blocked" in (result.transcript)
    lookup = "import socket\nsocket.create_connection(('example.com', 443))\n"
    result = await run_agent_file(write(tmp_path, lookup), "hi", model="echo")
    assert "looking up host 'example.com' is blocked in the sandbox" in result.transcript


async def test_loopback_connections_are_allowed(tmp_path: Path) -> None:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    port = server.getsockname()[1]
    code = f"""
    import socket
    socket.create_connection(("127.0.0.1", {port}), timeout=5).close()
    print("CONNECTED")
    x = 1
    """
    try:
        result = await run_agent_file(write(tmp_path, code), "hi", model="echo")
    finally:
        server.close()
    assert "CONNECTED" in result.transcript  # then LOAD FAILED: no root_agent, as expected


async def test_starting_processes_is_blocked(tmp_path: Path) -> None:
    code = "import subprocess\nsubprocess.run(['true'])\n"
    result = await run_agent_file(write(tmp_path, code), "hi", model="echo")
    assert "starting processes (subprocess.Popen) is blocked in the sandbox" in result.transcript


async def test_environment_has_no_credentials_and_closed_proxies(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret")
    code = """
    import os
    print("KEY", os.environ.get("OPENAI_API_KEY"))
    print("PROXY", os.environ.get("HTTPS_PROXY"))
    print("HOME", os.environ.get("HOME"))
    """
    result = await run_agent_file(write(tmp_path, code), "hi", model="echo")
    assert "KEY None" in result.transcript
    assert "PROXY http://127.0.0.1:9" in result.transcript
    assert f"HOME {tmp_path}" in result.transcript


async def test_resource_limits_are_applied_and_cannot_be_raised(tmp_path: Path) -> None:
    code = """
    import resource
    print("AS", resource.getrlimit(resource.RLIMIT_AS))
    print("FSIZE", resource.getrlimit(resource.RLIMIT_FSIZE))
    resource.setrlimit(resource.RLIMIT_AS, (-1, -1))
    """
    limits = SandboxLimits(memory_mb=3000, file_size_mb=8)
    result = await run_agent_file(write(tmp_path, code), "hi", model="echo", limits=limits)
    mb = 1024 * 1024
    assert f"AS ({3000 * mb}, {3000 * mb})" in result.transcript
    assert f"FSIZE ({8 * mb}, {8 * mb})" in result.transcript
    assert "changing resource limits is blocked in the sandbox" in result.transcript


async def test_output_is_capped(tmp_path: Path) -> None:
    code = "print('x' * 100_000)\n"
    limits = SandboxLimits(max_output_chars=1000)
    result = await run_agent_file(write(tmp_path, code), "hi", model="echo", limits=limits)
    assert result.truncated and len(result.transcript) <= 1000
    assert result.as_log().endswith("[output truncated]")


async def test_unknown_sandbox_model_is_reported(tmp_path: Path) -> None:
    result = await run_agent_file(write(tmp_path, ADD_AGENT), "hi", model="no/such-model")
    assert result.exit_code == 3
    assert "MODEL UNAVAILABLE: ValueError" in result.transcript
