"""`pyadk run`: rendering of tool calls, streamed text, outcomes and errors."""

from __future__ import annotations

import json
from pathlib import Path

WEATHER = """
from pyadk.agents import LlmAgent
from pyadk.testing import FunctionModel, Stream, function_call


def lookup(city: str) -> dict:
    \"\"\"The forecast for a city.\"\"\"
    return {"city": city, "forecast": "sunny"}


def reply(request):
    last = request.contents[-1]
    if any(p.function_response for p in last.parts or []):
        return Stream(["It is ", "sunny ", "in Paris."])
    if "boom" in (last.text or ""):
        raise RuntimeError("model is down")
    return function_call("lookup", {"city": "Paris"})


root_agent = LlmAgent(name="weather", model=FunctionModel(reply), tools=[lookup])
"""

STREAM_PROBE = """
from pyadk import types
from pyadk.agents import LlmAgent
from pyadk.models import BaseLlm, LlmResponse


class Probe(BaseLlm):
    model: str = "probe"

    async def generate_content_async(self, llm_request, stream=False):
        if stream:
            for chunk in ("stream", "ed=", "yes"):
                yield LlmResponse(content=types.ModelContent(chunk), partial=True)
            yield LlmResponse(content=types.ModelContent("streamed=yes"), turn_complete=True)
        else:
            yield LlmResponse(content=types.ModelContent("streamed=no"), turn_complete=True)


root_agent = LlmAgent(name="probe", model=Probe())
"""

FAILING_TOOL = """
from pyadk.agents import LlmAgent
from pyadk.testing import ScriptedModel, function_call


def failing_tool() -> dict:
    \"\"\"Always fails.\"\"\"
    return {"status": "error", "message": "Simulated failure"}


root_agent = LlmAgent(
    name="worker",
    model=ScriptedModel([function_call("failing_tool"), "I could not do it"]),
    tools=[failing_tool],
)
"""


def _replay(tmp_path: Path, queries: list[str], state: dict | None = None) -> str:
    path = tmp_path / "replay.json"
    path.write_text(json.dumps({"state": state or {}, "queries": queries}))
    return str(path)


def test_tool_calls_results_and_streamed_text_are_rendered_once(run_cli, write_agent, tmp_path):
    write_agent("weather", WEATHER)
    result = run_cli("run", "weather", "--replay", _replay(tmp_path, ["weather?"]))
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "[user]: weather?",
        '[weather] → lookup({"city": "Paris"})',
        '[weather] ← lookup returned {"city": "Paris", "forecast": "sunny"}',
        "[weather]: It is sunny in Paris.",
    ]


def test_run_streams_model_output(run_cli, write_agent):
    write_agent("probe", STREAM_PROBE)
    result = run_cli("run", "probe", input="hello\n")
    assert result.returncode == 0, result.stderr
    assert "[probe]: streamed=yes" in result.stdout.splitlines()
    assert result.stdout.count("streamed=") == 1  # the aggregate is not printed again


def test_non_success_outcome_is_shown(run_cli, write_agent, tmp_path):
    write_agent("worker", FAILING_TOOL)
    result = run_cli("run", "worker", "--replay", _replay(tmp_path, ["go"]))
    assert result.returncode == 0, result.stderr
    out = result.stdout.splitlines()
    assert "[worker]: I could not do it" in out
    outcome = [line for line in out if "outcome" in line]
    assert len(outcome) == 1 and outcome[0].startswith("[worker] outcome failure")
    assert "Simulated failure" in outcome[0]


def test_successful_run_shows_no_outcome_line(run_cli, write_agent, tmp_path):
    write_agent("weather", WEATHER)
    result = run_cli("run", "weather", "--replay", _replay(tmp_path, ["weather?"]))
    assert "outcome" not in result.stdout


def test_interactive_turn_error_is_reported_and_the_chat_goes_on(run_cli, write_agent):
    write_agent("weather", WEATHER)
    result = run_cli("run", "weather", input="boom\nweather?\nexit\n")
    assert result.returncode == 0, result.stderr
    out = result.stdout.splitlines()
    assert "error: RuntimeError: model is down" in out
    assert out.index("error: RuntimeError: model is down") < out.index(
        "[weather]: It is sunny in Paris."
    )


def test_replay_stops_with_status_1_at_a_failing_query(run_cli, write_agent, tmp_path):
    write_agent("weather", WEATHER)
    result = run_cli("run", "weather", "--replay", _replay(tmp_path, ["boom", "weather?"]))
    assert result.returncode == 1
    assert "error: RuntimeError: model is down" in result.stdout
    assert "Replay stopped: query 'boom' failed" in result.stderr
    assert "[user]: weather?" not in result.stdout


def test_replay_state_is_the_new_sessions_state(run_cli, write_agent, tmp_path):
    write_agent(
        "echo",
        """
        from pyadk.agents import LlmAgent
        from pyadk.testing import FunctionModel

        root_agent = LlmAgent(
            name="echo",
            instruction="Topic: {topic}.",
            model=FunctionModel(lambda request: request.system_instruction_text()),
        )
        """,
    )
    replay = _replay(tmp_path, ["what topic?"], state={"topic": "tides"})
    result = run_cli("run", "echo", "--replay", replay)
    assert result.returncode == 0, result.stderr
    assert "[echo]: Topic: tides." in result.stdout.splitlines()  # its system instruction


def test_user_id_and_session_id_options_name_the_session(run_cli, write_agent, tmp_path):
    write_agent(
        "who",
        """
        from pyadk.agents import LlmAgent
        from pyadk.testing import FunctionModel

        root_agent = LlmAgent(name="who", model=FunctionModel(lambda request: "ok"))
        """,
    )
    ids = ("--user-id", "alice", "--session-id", "s-42")
    result = run_cli("run", "who", *ids, "--save-session", input="hi\n")
    assert result.returncode == 0, result.stderr
    saved = json.loads((tmp_path / "who" / "s-42.session.json").read_text())
    assert (saved["id"], saved["user_id"], saved["app_name"]) == ("s-42", "alice", "who")


def test_resume_and_replay_together_is_a_usage_error(run_cli, write_agent, tmp_path):
    write_agent("weather", WEATHER)
    replay = _replay(tmp_path, ["x"])
    result = run_cli("run", "weather", "--replay", replay, "--resume", replay)
    assert result.returncode == 2
    assert "--resume and --replay cannot be used together" in result.stderr


APP_WITH_PLUGIN = """
from pyadk.agents import LlmAgent
from pyadk.apps import App
from pyadk.plugins import BasePlugin
from pyadk.testing import ScriptedModel


class Shout(BasePlugin):
    async def after_model_callback(self, *, callback_context, llm_response):
        llm_response.content.parts[0].text = llm_response.content.parts[0].text.upper()
        return llm_response


app = App(
    name="loud",
    root_agent=LlmAgent(name="speaker", model=ScriptedModel(["hello there"])),
    plugins=[Shout(name="shout")],
)
"""


def test_run_uses_an_exported_apps_plugins(run_cli, write_agent, tmp_path):
    write_agent("loud", APP_WITH_PLUGIN)
    result = run_cli("run", "loud", "--replay", _replay(tmp_path, ["hi"]))
    assert result.returncode == 0, result.stderr
    assert "[speaker]: HELLO THERE" in result.stdout.splitlines()
