"""DebugLoggingPlugin: one YAML document per invocation, through a real Runner."""

from __future__ import annotations

import logging
import os
import stat
from pathlib import Path
from typing import Any

import pytest
import yaml

from pyadk import types
from pyadk.agents import LlmAgent
from pyadk.auth.auth_credential import AuthCredential, AuthCredentialTypes
from pyadk.models.llm_response import LlmResponse
from pyadk.plugins import DebugLoggingPlugin
from pyadk.testing import ScriptedModel, TestRunner, function_call


def lookup(city: str, api_key: str) -> dict:
    """Looks up the weather."""
    return {"city": city, "temperature": 21}


def boom() -> str:
    """Always fails."""
    raise ValueError("disk on fire")


def _documents(path: Path) -> list[dict[str, Any]]:
    return list(yaml.safe_load_all(path.read_text(encoding="utf-8")))


def _types(document: dict[str, Any]) -> list[str]:
    return [entry["entry_type"] for entry in document["entries"]]


async def test_each_invocation_is_appended_as_one_yaml_document(tmp_path: Path) -> None:
    path = tmp_path / "debug.yaml"
    model = ScriptedModel(
        [function_call("lookup", {"city": "Oslo", "api_key": "k-1"}), "21", "bye"]
    )
    agent = LlmAgent(name="weather", model=model, tools=[lookup], instruction="Be brief.")
    runner = TestRunner(agent, plugins=[DebugLoggingPlugin(output_path=str(path))])
    await runner.run("weather in Oslo?")
    await runner.run("thanks")

    first, second = _documents(path)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert first["session_id"] == "test_session" and first["app_name"] == "test_app"
    assert first["user_id"] == "test_user" and first["invocation_id"] != second["invocation_id"]
    assert _types(first) == [
        "user_message",
        "invocation_start",
        "agent_start",
        "llm_request",
        "llm_response",
        "event",
        "tool_call",
        "tool_response",
        "event",
        "llm_request",
        "llm_response",
        "event",
        "agent_end",
        "session_state_snapshot",
        "invocation_end",
    ]
    entries = {entry["entry_type"]: entry for entry in first["entries"]}
    user = entries["user_message"]["data"]["content"]
    assert user == {"role": "user", "parts": [{"text": "weather in Oslo?"}]}
    request = entries["llm_request"]["data"]
    assert request["model"] == "scripted" and request["tools"] == ["lookup"]
    assert request["config"]["system_instruction"].startswith("Be brief.")
    call = entries["tool_call"]["data"]
    assert call["tool_name"] == "lookup" and call["args"] == {
        "city": "Oslo",
        "api_key": "[REDACTED]",
    }
    assert entries["tool_response"]["data"]["result"] == {"city": "Oslo", "temperature": 21}
    assert entries["llm_response"]["data"]["finish_reason"] == "STOP"
    assert entries["agent_start"]["agent_name"] == "weather"
    assert _types(second)[0] == "user_message"


async def test_secrets_are_redacted_and_bytes_omitted(tmp_path: Path) -> None:
    path = tmp_path / "debug.yaml"
    credential = AuthCredential(auth_type=AuthCredentialTypes.API_KEY, api_key="sk-live")
    pem = "-----BEGIN PRIVATE KEY-----\nMIIB\n-----END PRIVATE KEY-----"
    state = {
        "user:apiKey": "sk-1",
        "db_password": "hunter2",
        "credential": credential,
        "note": f"key: {pem} end",
        "prompt_token_count": 3,
    }
    agent = LlmAgent(name="a", model=ScriptedModel(["ok"]))
    runner = TestRunner(agent, state=state, plugins=[DebugLoggingPlugin(output_path=str(path))])
    image = types.Part.from_bytes(data=b"\x89PNG" * 100, mime_type="image/png")
    message = types.UserContent([types.Part(text="look"), image])
    await runner.run(message, state_delta={"temp:scratch": "x"})
    (document,) = _documents(path)
    snapshot = next(e for e in document["entries"] if e["entry_type"] == "session_state_snapshot")
    saved = snapshot["data"]["state"]
    assert saved["user:apiKey"] == saved["db_password"] == saved["temp:scratch"] == "[REDACTED]"
    assert saved["credential"] == "[REDACTED]"
    assert saved["note"] == "key: [REDACTED] end"
    assert saved["prompt_token_count"] == 3
    text = path.read_text()
    assert "sk-live" not in text and "hunter2" not in text and "MIIB" not in text
    user = document["entries"][0]["data"]["content"]["parts"][1]
    assert user["inline_data"]["mime_type"] == "image/png"
    assert user["inline_data"]["_data_omitted"] is True


async def test_options_leave_out_state_and_system_instruction(tmp_path: Path) -> None:
    path = tmp_path / "debug.yaml"
    plugin = DebugLoggingPlugin(
        output_path=str(path), include_session_state=False, include_system_instruction=False
    )
    agent = LlmAgent(name="a", model=ScriptedModel(["ok"]), instruction="Secret prompt.")
    await TestRunner(agent, plugins=[plugin]).run("hi")
    (document,) = _documents(path)
    assert "session_state_snapshot" not in _types(document)
    request = next(e for e in document["entries"] if e["entry_type"] == "llm_request")
    config = request["data"]["config"]
    assert "system_instruction" not in config and config["system_instruction_length"] > 0
    assert "Secret prompt." not in path.read_text()


async def test_a_recovered_model_error_and_tool_error_are_recorded(tmp_path: Path) -> None:
    path = tmp_path / "debug.yaml"

    def recover_model(callback_context: Any, llm_request: Any, error: Exception) -> LlmResponse:
        return LlmResponse(content=types.ModelContent([function_call("boom")]))

    def recover_tool(tool: Any, args: Any, tool_context: Any, error: Exception) -> dict:
        return {"error": str(error)}

    agent = LlmAgent(
        name="a",
        model=ScriptedModel([RuntimeError("overloaded"), "done"]),
        tools=[boom],
        on_model_error_callback=recover_model,
        on_tool_error_callback=recover_tool,
    )
    await TestRunner(agent, plugins=[DebugLoggingPlugin(output_path=str(path))]).run("go")
    (document,) = _documents(path)
    entries = document["entries"]
    model_error = next(e for e in entries if e["entry_type"] == "llm_error")
    assert model_error["data"]["error_type"] == "RuntimeError"
    assert model_error["data"]["error_message"] == "overloaded"
    tool_errors = [e for e in entries if e["entry_type"] == "tool_error"]
    assert len(tool_errors) == 1  # the agent's recovery is not recorded a second time
    assert tool_errors[0]["data"]["error_message"] == "disk on fire"
    assert "tool_response" not in _types(document)


async def test_an_invocation_that_raises_is_written_ending_with_its_error(
    tmp_path: Path,
) -> None:
    path = tmp_path / "debug.yaml"
    model = ScriptedModel([function_call("boom"), "ok"])
    plugin = DebugLoggingPlugin(output_path=str(path))
    runner = TestRunner(LlmAgent(name="a", model=model, tools=[boom]), plugins=[plugin])
    with pytest.raises(ValueError, match="disk on fire"):
        await runner.run("go")
    [document] = _documents(path)  # the failed invocation is the one worth reading
    kinds = _types(document)
    assert kinds[-1] == "invocation_end" and "invocation_error" in kinds
    error = document["entries"][kinds.index("invocation_error")]["data"]
    assert error == {"error_type": "ValueError", "error_message": "disk on fire"}
    assert "tool_error" in _types(document)
    assert plugin._invocation_states == {}  # nothing kept in memory


async def test_an_unwritable_file_is_logged_and_the_run_goes_on(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "missing-dir" / "debug.yaml"
    agent = LlmAgent(name="a", model=ScriptedModel(["ok"]))
    events = await TestRunner(agent, plugins=[DebugLoggingPlugin(output_path=str(path))]).run("hi")
    assert events[-1].text == "ok"
    assert any("Failed to write debug data" in r.message for r in caplog.records)


async def test_an_existing_readable_file_is_appended_with_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "debug.yaml"
    path.write_text("")
    path.chmod(0o644)
    runner = TestRunner(
        LlmAgent(name="a", model=ScriptedModel(["one", "two"])),
        plugins=[DebugLoggingPlugin(output_path=str(path))],
    )
    with caplog.at_level(logging.WARNING):
        await runner.run("hi")
        await runner.run("again")
    warnings = [r for r in caplog.records if "readable by others" in r.message]
    assert len(warnings) == 1 and len(_documents(path)) == 2
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o644  # the user's choice is kept
