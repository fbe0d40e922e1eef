"""`pyadk run` and tool calls that need approval: the turn that ends with
``adk_request_confirmation`` calls shows each waiting call and asks ``Approve? [y/N]``,
sends the answers as the next turn; a resumed session that waits is asked first; a
replay stops at a request instead of hanging."""

from __future__ import annotations

import fcntl
import json
import os
import pty
import select
import subprocess
import sys
import termios
import time
from pathlib import Path

TIMEOUT = 60  # seconds; a guard against a hung subprocess
SECRET = "k-9c2e-never-printed"

WEATHER = """
from pyadk.agents import LlmAgent
from pyadk.auth.auth_schemes import APIKey
from pyadk.auth.auth_tool import AuthConfig
from pyadk.auth.credential_manager import CredentialManager
from pyadk.testing import FunctionModel, function_call

CONFIG = AuthConfig(auth_scheme=APIKey(**{"in": "header", "name": "X-Api-Key"}))


async def forecast(city: str, tool_context) -> dict:
    \"\"\"The weather in a city.\"\"\"
    manager = CredentialManager(CONFIG)
    credential = await manager.get_auth_credential(tool_context)
    if credential is None:
        await manager.request_credential(tool_context)
        return {"pending": True}
    return {"city": city, "sky": "clear", "key_length": len(credential.api_key)}


def reply(request):
    last = request.contents[-1].parts[0]
    if last.function_response is not None:
        return f"Clear skies ({last.function_response.response['key_length']}-char key)."
    return function_call("forecast", {"city": "Paris"})


root_agent = LlmAgent(name="weather", model=FunctionModel(reply), tools=[forecast])
"""

PAY = """
import json

from pyadk.agents import LlmAgent
from pyadk.testing import FunctionModel, function_call
from pyadk.tools import FunctionTool

PAID = []


def pay(amount: int) -> dict:
    \"\"\"Pays an invoice.\"\"\"
    return {"status": "paid", "amount": amount}


def pick_size(tool_context) -> dict:
    \"\"\"Asks the person which size to order.\"\"\"
    if tool_context.tool_confirmation is None:
        tool_context.request_confirmation(hint="Which size?", payload={"size": "M"})
        return {"pending": True}
    return {"ordered": tool_context.tool_confirmation.payload}


def reply(request):
    last = request.contents[-1]
    results = [p.function_response.response for p in last.parts if p.function_response]
    if results:
        return "Done: " + json.dumps(results)
    text = last.parts[0].text or ""
    if "both" in text:
        return [function_call("pay", {"amount": 900}), function_call("pay", {"amount": 500})]
    if "size" in text:
        return function_call("pick_size")
    return function_call("pay", {"amount": 900})


root_agent = LlmAgent(
    name="payments",
    model=FunctionModel(reply),
    tools=[FunctionTool(pay, require_confirmation=lambda amount: amount > 100), pick_size],
)
"""

ASKED = '[payments] approval: pay({"amount": 900}): Approve or reject pay(amount=900).'


def after(stdout: str, first: str) -> list[str]:
    lines = stdout.splitlines()
    return lines[lines.index(first) :]


def test_an_approved_call_runs_and_the_model_goes_on(run_cli, write_agent):
    write_agent("pay", PAY)

    result = run_cli("run", "pay", input="pay the invoice\ny\nexit\n")

    assert result.returncode == 0, result.stderr
    assert after(result.stdout, "[user]: pay the invoice") == [
        "[user]: pay the invoice",
        '[payments] → pay({"amount": 900})',
        ASKED,
        "Approve? [y/N] ",
        "[user]: Approved pay",
        '[payments] ← pay returned {"status": "paid", "amount": 900}',
        '[payments]: Done: [{"status": "paid", "amount": 900}]',
    ]
    assert "adk_request_confirmation" not in result.stdout
    assert "requires confirmation" not in result.stdout  # the placeholder is not shown


def test_a_rejected_call_never_runs(run_cli, write_agent):
    write_agent("pay", PAY)

    result = run_cli("run", "pay", input="pay the invoice\nn\nexit\n")

    assert result.returncode == 0, result.stderr
    assert after(result.stdout, "Approve? [y/N] ") == [
        "Approve? [y/N] ",
        "[user]: Rejected pay",
        '[payments] ← pay returned {"error": "This tool call is rejected."}',
        '[payments]: Done: [{"error": "This tool call is rejected."}]',
    ]


def test_an_empty_answer_rejects_and_an_unclear_one_is_asked_again(run_cli, write_agent):
    write_agent("pay", PAY)

    result = run_cli("run", "pay", input="pay the invoice\nsure\n\nexit\n")

    assert result.returncode == 0, result.stderr
    assert after(result.stdout, "Approve? [y/N] ")[:4] == [
        "Approve? [y/N] ",
        "error: Answer y or n, not 'sure'.",
        "Approve? [y/N] ",
        "[user]: Rejected pay",
    ]


def test_several_calls_waiting_in_one_turn_are_answered_in_one_message(run_cli, write_agent):
    write_agent("pay", PAY)

    result = run_cli("run", "pay", input="pay both\nyes\nno\nexit\n")

    assert result.returncode == 0, result.stderr
    assert after(result.stdout, "[user]: pay both") == [
        "[user]: pay both",
        '[payments] → pay({"amount": 900})',
        '[payments] → pay({"amount": 500})',
        ASKED,
        '[payments] approval: pay({"amount": 500}): Approve or reject pay(amount=500).',
        "Approve pay (1 of 2)? [y/N] ",
        "Approve pay (2 of 2)? [y/N] ",
        "[user]: Approved pay (1 of 2)",
        "[user]: Rejected pay (2 of 2)",
        '[payments] ← pay returned {"status": "paid", "amount": 900}',
        '[payments] ← pay returned {"error": "This tool call is rejected."}',
        '[payments]: Done: [{"status": "paid", "amount": 900}, '
        '{"error": "This tool call is rejected."}]',
    ]


def test_a_payload_the_tool_asked_for_is_sent_back(run_cli, write_agent):
    write_agent("pay", PAY)

    result = run_cli("run", "pay", input='size?\ny\n{bad\n{"size": "L"}\nexit\n')

    assert result.returncode == 0, result.stderr
    assert after(result.stdout, "[user]: size?")[1:] == [
        "[payments] → pick_size({})",
        '[payments] approval: pick_size({}): Which size? (payload {"size": "M"})',
        "Approve? [y/N] ",
        'Payload for pick_size as JSON (empty: keep {"size": "M"}): ',
        "error: Invalid JSON: Expecting property name enclosed in double quotes: "
        "line 1 column 2 (char 1)",
        'Payload for pick_size as JSON (empty: keep {"size": "M"}): ',
        "[user]: Approved pick_size",
        '[payments] ← pick_size returned {"ordered": {"size": "L"}}',
        '[payments]: Done: [{"ordered": {"size": "L"}}]',
    ]


def test_the_end_of_input_leaves_the_request_unanswered(run_cli, write_agent):
    write_agent("pay", PAY)

    result = run_cli("run", "pay", "--save-session", input="pay the invoice\n")

    assert result.returncode == 0, result.stderr
    assert after(result.stdout, "Approve? [y/N] ")[:2] == [
        "Approve? [y/N] ",
        "No answer (end of input): the call waits for approval of pay.",
    ]
    assert "[user]: Rejected pay" not in result.stdout
    assert "pay returned" not in result.stdout


def save_waiting_session(run_cli, tmp_path: Path, agent: str, query: str) -> Path:
    """Runs ``query`` and ends the input at the request: the saved session waits."""
    result = run_cli("run", agent, "--save-session", input=f"{query}\n")
    assert result.returncode == 0, result.stderr
    [saved] = (tmp_path / agent).glob("*.session.json")
    return saved


def test_a_resumed_session_waiting_for_approval_asks_first(run_cli, write_agent, tmp_path):
    write_agent("pay", PAY)
    saved = save_waiting_session(run_cli, tmp_path, "pay", "pay the invoice")

    result = run_cli("run", "pay", "--resume", str(saved), input="y\nexit\n")

    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("Resumed 4 events from ")
    assert lines[1:] == [
        "[user]: pay the invoice",
        '[payments] → pay({"amount": 900})',
        ASKED,
        "The session waits for approval of pay.",
        "Approve? [y/N] ",
        "[user]: Approved pay",
        '[payments] ← pay returned {"status": "paid", "amount": 900}',
        '[payments]: Done: [{"status": "paid", "amount": 900}]',
        lines[-1],
    ]
    assert lines[-1].startswith("Running agent payments (session ")


def test_a_resumed_session_waiting_for_a_credential_asks_first(run_cli, write_agent, tmp_path):
    write_agent("weather", WEATHER)
    saved = save_waiting_session(run_cli, tmp_path, "weather", "weather?")

    result = run_cli("run", "weather", "--resume", str(saved), input=f"{SECRET}\nexit\n")

    assert result.returncode == 0, result.stderr
    assert after(result.stdout, "The session waits for a credential for forecast.") == [
        "The session waits for a credential for forecast.",
        "API key for forecast (hidden, empty: skip): ",
        "[user]: Provided a credential",
        '[weather] ← forecast returned {"city": "Paris", "sky": "clear", "key_length": 20}',
        "[weather]: Clear skies (20-char key).",
        result.stdout.splitlines()[-1],
    ]
    assert SECRET not in result.stdout + result.stderr


def test_a_resumed_session_that_was_answered_asks_nothing(run_cli, write_agent, tmp_path):
    write_agent("pay", PAY)
    result = run_cli("run", "pay", "--save-session", input="pay the invoice\ny\nexit\n")
    [saved] = (tmp_path / "pay").glob("*.session.json")

    result = run_cli("run", "pay", "--resume", str(saved), input="exit\n")

    assert result.returncode == 0, result.stderr
    assert "Approve?" not in result.stdout
    assert "[user]: Approved pay" in result.stdout  # the saved answer, as shown


def test_a_failed_answer_is_reported_and_asked_again(run_cli, write_agent, tmp_path):
    write_agent("pay", PAY)
    saved = save_waiting_session(run_cli, tmp_path, "pay", "pay the invoice")
    session = json.loads(saved.read_text())
    request = session["events"][-1]["content"]["parts"][0]["function_call"]
    request["args"]["originalFunctionCall"]["args"] = {"amount": 1}  # not the call it holds
    saved.write_text(json.dumps(session))

    result = run_cli("run", "pay", "--resume", str(saved), input="y\ny\n")

    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    errors = [line for line in lines if line.startswith("error: ToolConfirmationError: ")]
    assert len(errors) == 2 and "does not match the session's history" in errors[0]
    assert lines.count("Approve? [y/N] ") == 3  # asked again after each failure
    assert "No answer (end of input): the call waits for approval of pay." in lines
    assert "pay returned" not in result.stdout


def test_a_replay_stops_at_a_request_instead_of_asking(run_cli, write_agent, tmp_path):
    write_agent("pay", PAY)
    replay = tmp_path / "replay.json"
    replay.write_text(json.dumps({"queries": ["pay the invoice", "and the next one"]}))

    result = run_cli("run", "pay", "--replay", str(replay), "--save-session", input="y\n")

    assert result.returncode == 1
    assert "Approve?" not in result.stdout
    assert "and the next one" not in result.stdout  # the replay stopped there
    assert result.stdout.splitlines()[-2] == ASKED
    assert result.stdout.splitlines()[-1].startswith("Session saved to ")
    assert (
        "Replay stopped: query 'pay the invoice' ended waiting for approval of pay; a replay "
        "answers no requests (save the session with --save-session and answer it with --resume)"
    ) in result.stderr
    [saved] = (tmp_path / "pay").glob("*.session.json")
    resumed = run_cli("run", "pay", "--resume", str(saved), input="y\nexit\n")
    assert "[user]: Approved pay" in resumed.stdout


def test_a_replay_stops_at_a_credential_request(run_cli, write_agent, tmp_path):
    write_agent("weather", WEATHER)
    replay = tmp_path / "replay.json"
    replay.write_text(json.dumps({"queries": ["weather?"]}))

    result = run_cli("run", "weather", "--replay", str(replay), input=f"{SECRET}\n")

    assert result.returncode == 1
    assert "hidden, empty: skip" not in result.stdout
    assert "waiting for a credential for forecast" in result.stderr


def test_on_a_terminal_the_approval_is_typed_at_the_prompt(write_agent, make_env, tmp_path):
    write_agent("pay", PAY)
    controller, terminal = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "pyadk.cli", "run", "pay"],
        cwd=tmp_path,
        stdin=terminal,
        stdout=terminal,
        stderr=terminal,
        env=make_env(),
        close_fds=True,
        start_new_session=True,
        preexec_fn=lambda: fcntl.ioctl(0, termios.TIOCSCTTY, 0),  # the user's terminal
    )
    os.close(terminal)
    seen = b""

    def read_until(marker: bytes) -> None:
        nonlocal seen
        deadline = time.monotonic() + TIMEOUT
        while marker not in seen:
            assert time.monotonic() < deadline, seen.decode(errors="replace")
            ready, _, _ = select.select([controller], [], [], 1)
            if ready:
                try:
                    seen += os.read(controller, 4096)
                except OSError:  # the child closed the terminal
                    break

    try:
        read_until(b"[user]: ")
        os.write(controller, b"pay the invoice\n")
        read_until(b"Approve? [y/N] ")
        os.write(controller, b"y\n")
        read_until(b"Done: ")
        os.write(controller, b"exit\n")
        process.wait(timeout=TIMEOUT)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        os.close(controller)
    text = seen.decode(errors="replace")
    assert "[user]: Approved pay" in text
    assert '[payments] ← pay returned {"status": "paid", "amount": 900}' in text
