"""`pyadk run` and tools that need the user's credential: the turn that ends with an
``adk_request_credential`` call asks for it (an API key without echo, a sign-in URL
and then the redirect), sends the answer as the next turn, and never prints the key."""

from __future__ import annotations

import fcntl
import os
import pty
import select
import subprocess
import sys
import termios
import time
from pathlib import Path

SECRET = "k-9c2e-never-printed"
TIMEOUT = 60  # seconds; a guard against a hung subprocess

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

PROFILE = """
from pyadk.agents import LlmAgent
from pyadk.auth.auth_credential import AuthCredential, AuthCredentialTypes, OAuth2Auth
from pyadk.auth.auth_schemes import OAuth2, OAuthFlows
from pyadk.auth.auth_tool import AuthConfig
from pyadk.auth.credential_manager import CredentialManager
from pyadk.testing import FunctionModel, function_call

FLOW = {"authorizationUrl": "http://127.0.0.1:9/authorize", "tokenUrl": "http://127.0.0.1:9/token"}
CONFIG = AuthConfig(
    auth_scheme=OAuth2(flows=OAuthFlows(authorizationCode={**FLOW, "scopes": {}})),
    raw_auth_credential=AuthCredential(
        auth_type=AuthCredentialTypes.OAUTH2,
        oauth2=OAuth2Auth(client_id="web-app", redirect_uri="http://127.0.0.1:9/callback"),
    ),
)


async def my_profile(tool_context) -> dict:
    \"\"\"The signed-in user's profile.\"\"\"
    manager = CredentialManager(CONFIG)
    if await manager.get_auth_credential(tool_context) is None:
        await manager.request_credential(tool_context)
        return {"pending": True}
    return {"signed_in": True}


def reply(request):
    if request.contents[-1].parts[0].function_response is not None:
        return "Signed in."
    return function_call("my_profile")


root_agent = LlmAgent(name="profile", model=FunctionModel(reply), tools=[my_profile])
"""


def test_an_api_key_is_asked_for_and_sent_as_the_next_turn(run_cli, write_agent):
    write_agent("weather", WEATHER)

    result = run_cli("run", "weather", input=f"weather?\n{SECRET}\nexit\n")

    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    start = lines.index("[user]: weather?")
    assert lines[start:] == [
        "[user]: weather?",
        '[weather] → forecast({"city": "Paris"})',
        "[weather] credential: forecast needs an API key (X-Api-Key header)",
        "API key for forecast (hidden, empty: skip): ",
        "[user]: Provided a credential",
        '[weather] ← forecast returned {"city": "Paris", "sky": "clear", "key_length": 20}',
        "[weather]: Clear skies (20-char key).",
    ]
    assert SECRET not in result.stdout + result.stderr
    assert "adk_request_credential" not in result.stdout


def test_the_key_is_kept_for_the_next_turns(run_cli, write_agent):
    write_agent("weather", WEATHER)

    result = run_cli("run", "weather", input=f"weather?\n{SECRET}\nand now?\nexit\n")

    assert result.returncode == 0, result.stderr
    assert result.stdout.count("credential: forecast needs") == 1
    assert result.stdout.count("[weather]: Clear skies (20-char key).") == 2


def test_an_empty_answer_or_the_end_of_input_skips_the_request(run_cli, write_agent):
    write_agent("weather", WEATHER)

    result = run_cli("run", "weather", input="weather?\n\nexit\n")

    assert result.returncode == 0, result.stderr
    assert "Credential not given: the tool call waits for it." in result.stdout
    assert "[user]: Provided a credential" not in result.stdout
    assert "Clear skies" not in result.stdout


def test_a_sign_in_prints_the_url_and_a_refused_redirect_is_asked_again(run_cli, write_agent):
    write_agent("profile", PROFILE)
    forged = "http://127.0.0.1:9/callback?code=c-1&state=forged"

    result = run_cli("run", "profile", input=f"who am I?\n{forged}\n\nexit\n")

    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    [asked] = [line for line in lines if line.startswith("[profile] credential:")]
    assert asked.startswith(
        "[profile] credential: my_profile needs you to sign in: open http://127.0.0.1:9/authorize?"
    )
    assert "state=" in asked and "client_id=web-app" in asked
    prompt = "Paste the URL your browser landed on after signing in (empty: skip): "
    assert lines.count(prompt) == 2  # refused, then asked again (and skipped)
    [error] = [line for line in lines if line.startswith("error:")]
    assert error.startswith("error: ToolAuthError: ") and "state" in error
    assert lines.index(error) < len(lines) - 1 - lines[::-1].index(prompt)
    assert "[user]: Signed in" in lines
    assert "Credential not given: the tool call waits for it." in lines


def test_on_a_terminal_the_key_is_typed_without_echo(write_agent, make_env, tmp_path: Path):
    write_agent("weather", WEATHER)
    controller, terminal = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "pyadk.cli", "run", "weather"],
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
        os.write(controller, b"weather?\n")
        read_until(b"(hidden, empty: skip): ")
        assert not termios.tcgetattr(controller)[3] & termios.ECHO  # echo is off
        os.write(controller, SECRET.encode() + b"\n")
        read_until(b"Clear skies (20-char key).")
        os.write(controller, b"exit\n")
        process.wait(timeout=TIMEOUT)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        os.close(controller)
    text = seen.decode(errors="replace")
    assert "Provided a credential" in text
    assert SECRET not in text  # the terminal never echoed it
