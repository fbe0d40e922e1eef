"""LoggingPlugin: prints every callback point of a run, through a real Runner."""

from __future__ import annotations

import re
import subprocess
import sys
from typing import Any

import pytest

from pyadk import types
from pyadk.agents import LlmAgent
from pyadk.models.llm_response import LlmResponse
from pyadk.plugins import BasePlugin, LoggingPlugin, ToolResultClassification
from pyadk.testing import ScriptedModel, TestRunner, function_call


def add(a: int, b: int) -> int:
    """Adds two numbers."""
    return a + b


def boom() -> str:
    """Always fails."""
    raise ValueError("disk on fire")


def flaky() -> dict:
    """Reports a failure without raising."""
    return {"isError": True, "content": []}


def _lines(capsys: pytest.CaptureFixture[str], name: str = "logging_plugin") -> list[str]:
    """The plugin's printed lines, without the colour codes and the name prefix."""
    out = capsys.readouterr().out
    return re.findall(re.escape(f"\033[90m[{name}] ") + r"(.*?)\033\[0m\n", out, re.DOTALL)


def _headers(lines: list[str]) -> list[str]:
    return [line for line in lines if not line.startswith(" ")]


async def test_prints_every_callback_point_of_a_run_with_a_tool(capsys: Any) -> None:
    model = ScriptedModel(
        [
            function_call("add", {"a": 1, "b": 2}),
            LlmResponse(
                content=types.ModelContent("3"),
                finish_reason=types.FinishReason.STOP,
                usage_metadata=types.GenerateContentResponseUsageMetadata(
                    prompt_token_count=7, candidates_token_count=1
                ),
            ),
        ]
    )
    agent = LlmAgent(name="calc", model=model, tools=[add], instruction="Add numbers.")
    runner = TestRunner(agent, plugins=[LoggingPlugin()])
    await runner.run("1+2?")
    lines = _lines(capsys)
    assert _headers(lines) == [
        "USER MESSAGE",
        "RUN STARTING",
        "AGENT STARTING",
        "MODEL REQUEST",
        "MODEL RESPONSE",
        "EVENT",
        "TOOL STARTING",
        "TOOL COMPLETED",
        "EVENT",
        "MODEL REQUEST",
        "MODEL RESPONSE",
        "EVENT",
        "AGENT COMPLETED",
        "RUN COMPLETED",
    ]
    assert "   User Content: text: '1+2?'" in lines
    assert "   Root Agent: calc" in lines
    assert "   Available Tools: ['add']" in lines
    assert any(line.startswith("   System Instruction: 'Add numbers.") for line in lines)
    assert "   Arguments: {'a': 1, 'b': 2}" in lines
    assert "   Result: 3" in lines
    assert "   Function Calls: ['add']" in lines
    assert "   Function Responses: ['add']" in lines
    assert "   Token Usage - Input: 7, Output: 1" in lines
    assert "   Finish Reason: STOP" in lines
    assert "   Final Response: True" in lines


async def test_name_prefixes_every_line_and_long_text_is_truncated(capsys: Any) -> None:
    agent = LlmAgent(name="echo", model=ScriptedModel(["x" * 500]))
    await TestRunner(agent, plugins=[LoggingPlugin(name="trace")]).run("hi")
    lines = _lines(capsys, "trace")
    assert lines and f"   Content: text: '{'x' * 200}...'" in lines


async def test_a_raising_tool_is_printed_as_a_tool_error_and_the_run_fails(capsys: Any) -> None:
    model = ScriptedModel([function_call("boom"), "unreached"])
    runner = TestRunner(LlmAgent(name="a", model=model, tools=[boom]), plugins=[LoggingPlugin()])
    with pytest.raises(ValueError, match="disk on fire"):
        await runner.run("go")
    lines = _lines(capsys)
    assert "TOOL ERROR" in lines and "TOOL COMPLETED" not in lines
    assert "   Error: disk on fire" in lines
    assert "RUN COMPLETED" not in lines  # the run raised


async def test_a_model_error_is_printed_and_recovery_by_the_agent_is_logged(capsys: Any) -> None:
    def recover(callback_context: Any, llm_request: Any, error: Exception) -> LlmResponse:
        print("agent recovers")
        return LlmResponse(content=types.ModelContent("fallback answer"))

    model = ScriptedModel([RuntimeError("model down")])
    agent = LlmAgent(name="a", model=model, on_model_error_callback=recover)
    events = await TestRunner(agent, plugins=[LoggingPlugin()]).run("hi")
    assert events[-1].text == "fallback answer"
    out = capsys.readouterr().out
    # The plugin runs before the agent's callback, and sees the recovered response.
    assert out.index("MODEL ERROR") < out.index("agent recovers") < out.index("fallback answer")
    assert "Error: model down" in out


async def test_an_unrecovered_model_error_fails_the_run_after_being_printed(capsys: Any) -> None:
    runner = TestRunner(
        LlmAgent(name="a", model=ScriptedModel([RuntimeError("quota")])),
        plugins=[LoggingPlugin()],
    )
    with pytest.raises(RuntimeError, match="quota"):
        await runner.run("hi")
    assert "   Error: quota" in _lines(capsys)


async def test_plugin_prints_before_agent_callbacks_and_earlier_plugins_win(capsys: Any) -> None:
    class Answer(BasePlugin):
        async def before_model_callback(self, **kwargs: Any) -> LlmResponse:
            return LlmResponse(content=types.ModelContent("cached"))

    def agent_before_tool(tool: Any, args: Any, tool_context: Any) -> dict:
        print("agent before_tool")
        return {"skipped": True}

    model = ScriptedModel([function_call("add", {"a": 1, "b": 1}), "done"])
    agent = LlmAgent(name="a", model=model, tools=[add], before_tool_callback=agent_before_tool)
    await TestRunner(agent, plugins=[LoggingPlugin()]).run("go")
    out = capsys.readouterr().out
    assert out.index("TOOL STARTING") < out.index("agent before_tool")
    assert "Result: {'skipped': True}" in out  # the agent's answer reaches after_tool

    # A plugin registered before the logger answers the model call: the logger's
    # before_model hook is skipped, as every later plugin's is.
    agent = LlmAgent(name="b", model=ScriptedModel([]))
    await TestRunner(agent, plugins=[Answer("answer"), LoggingPlugin()]).run("hi")
    lines = _lines(capsys)
    assert "MODEL REQUEST" not in lines and "   Content: text: 'cached'" in lines


async def test_a_raised_error_answered_by_a_later_plugin_is_printed_once(capsys: Any) -> None:
    class Answer(BasePlugin):
        async def on_tool_error_callback(self, **kwargs: Any) -> dict:
            return {"recovered": True}

    model = ScriptedModel([function_call("boom"), "ok"])
    agent = LlmAgent(name="a", model=model, tools=[boom])
    await TestRunner(agent, plugins=[LoggingPlugin(), Answer("answer")]).run("go")
    headers = _headers(_lines(capsys))
    assert headers.count("TOOL ERROR") == 1 and "TOOL COMPLETED" not in headers


async def test_results_that_report_a_failure_are_tool_errors(capsys: Any) -> None:
    model = ScriptedModel([function_call("flaky"), "ok"])
    agent = LlmAgent(name="a", model=model, tools=[flaky])
    await TestRunner(agent, plugins=[LoggingPlugin()]).run("go")
    lines = _lines(capsys)
    assert "TOOL ERROR" in lines
    assert "   Error: Tool returned an MCP result with isError=true." in lines

    def classify(*, tool: Any, tool_args: Any, tool_context: Any, result: Any) -> Any:
        if tool.name == "add":
            return ToolResultClassification(status="ERROR", error_message="sum too small")
        return ToolResultClassification(status="OK")  # overrides the MCP rule

    model = ScriptedModel([[function_call("add", {"a": 1, "b": 1}), function_call("flaky")], "ok"])
    agent = LlmAgent(name="b", model=model, tools=[add, flaky])
    await TestRunner(agent, plugins=[LoggingPlugin(tool_result_classifier=classify)]).run("go")
    lines = _lines(capsys)
    assert _headers(lines).count("TOOL ERROR") == 1 and "   Error: sum too small" in lines
    assert "TOOL COMPLETED" in lines


async def test_a_failing_classifier_falls_back_to_the_built_in_rule(
    capsys: Any, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(*, tool: Any, tool_args: Any, tool_context: Any, result: Any) -> Any:
        raise KeyError("secret result value")

    model = ScriptedModel([function_call("flaky"), "ok"])
    agent = LlmAgent(name="a", model=model, tools=[flaky])
    await TestRunner(agent, plugins=[LoggingPlugin(tool_result_classifier=broken)]).run("go")
    assert "TOOL ERROR" in _lines(capsys)
    warning = next(r for r in caplog.records if "tool_result_classifier" in r.message)
    assert "flaky" in warning.message and "secret" not in warning.message


@pytest.mark.parametrize(
    ("classifier", "message"),
    [
        ("not callable", "must be callable"),
        (lambda result: None, "keyword arguments"),
    ],
)
def test_a_classifier_that_cannot_be_called_is_refused(classifier: Any, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        LoggingPlugin(tool_result_classifier=classifier)

    async def asynchronous(*, tool: Any, tool_args: Any, tool_context: Any, result: Any) -> None:
        return None

    with pytest.raises(ValueError, match="synchronous"):
        LoggingPlugin(tool_result_classifier=asynchronous)


def test_import_pyadk_plugins_loads_no_built_in_plugin() -> None:
    code = (
        "import sys, pyadk.plugins as p\n"
        "print(sorted(m for m in sys.modules if m.startswith('pyadk.plugins.')))\n"
        "print(p.LoggingPlugin.__module__, p.DebugLoggingPlugin.__name__)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    assert out[0] == "['pyadk.plugins.base_plugin', 'pyadk.plugins.plugin_manager']"
    assert out[1] == "pyadk.plugins.logging_plugin DebugLoggingPlugin"


async def test_workflow_node_outputs_and_failures_are_printed(capsys: Any) -> None:
    from pyadk.workflow import START, Workflow

    def shout(node_input: str) -> str:
        return node_input.upper()

    def explode(node_input: str) -> str:
        raise KeyError("no such row")

    runner = TestRunner(
        Workflow(name="wf", edges=[(START, shout, explode)]), plugins=[LoggingPlugin()]
    )
    with pytest.raises(Exception, match="no such row"):
        await runner.run("hi")
    lines = _lines(capsys)
    assert any(line.startswith("   Node Path: wf@1/shout@1") for line in lines)
    assert "   Node Output: 'HI'" in lines
    assert any(
        line.startswith("   Node Error: [KeyError]") and "no such row" in line for line in lines
    )


async def test_a_streamed_answer_prints_the_finish_reason_once(capsys: Any) -> None:
    from pyadk.agents import RunConfig, StreamingMode
    from pyadk.testing import Stream

    agent = LlmAgent(name="a", model=ScriptedModel([Stream(["Hel", "lo"])]))
    config = RunConfig(streaming_mode=StreamingMode.SSE)
    await TestRunner(agent, plugins=[LoggingPlugin()]).run("hi", run_config=config)
    lines = _lines(capsys)
    assert lines.count("   Partial: True") == 2
    assert lines.count("   Finish Reason: STOP") == 1
