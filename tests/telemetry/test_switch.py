"""When pyadk traces: only with a tracer provider set; never without OpenTelemetry; and
what content it leaves out when asked to."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from pyadk import telemetry
from pyadk.agents import LlmAgent
from pyadk.testing import ScriptedModel, TestRunner, function_call

from .conftest import set_global_provider

SUBPROCESS_TIMEOUT = 120  # seconds; guards against a hung interpreter


def add(a: int, b: int) -> int:
    """Adds two numbers."""
    return a + b


def _calc() -> LlmAgent:
    model = ScriptedModel([function_call("add", {"a": 1, "b": 2}), "3"])
    return LlmAgent(name="calc", model=model, tools=[add])


async def test_without_a_tracer_provider_nothing_is_recorded(no_global_provider):
    exporter = InMemorySpanExporter()
    unused = TracerProvider()  # configured, but never set as the global provider
    unused.add_span_processor(SimpleSpanProcessor(exporter))

    events = await TestRunner(_calc()).run("1+2?")

    assert telemetry.get_tracer() is None and not telemetry.is_tracing()
    assert [e.content.parts[0].text for e in events[-1:] if e.content] == ["3"]
    assert exporter.get_finished_spans() == ()


async def test_the_api_no_op_provider_leaves_tracing_off(no_global_provider):
    set_global_provider(trace.NoOpTracerProvider())

    events = await TestRunner(_calc()).run("1+2?")

    assert not telemetry.is_tracing()
    assert len(events) == 3


async def test_a_provider_set_later_or_replaced_is_picked_up(tracing):
    await TestRunner(_calc(), session_id="first").run("1+2?")
    assert len(tracing.named("invocation")) == 1

    replacement = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(replacement))
    set_global_provider(provider)
    await TestRunner(_calc(), session_id="second").run("1+2?")

    assert len(tracing.named("invocation")) == 1  # the old provider got nothing new
    names = sorted(s.name for s in replacement.get_finished_spans())
    assert names == ["call_llm", "call_llm", "execute_tool add", "invocation", "invoke_agent calc"]
    set_global_provider(None)
    assert not telemetry.is_tracing()


async def test_spans_come_from_pyadks_instrumentation_scope(tracing):
    await TestRunner(_calc()).run("1+2?")

    scopes = {s.instrumentation_scope.name for s in tracing.spans() if s.instrumentation_scope}
    assert scopes == {"pyadk"}


@pytest.mark.parametrize(
    "variable", ["PYADK_CAPTURE_MESSAGE_CONTENT_IN_SPANS", "ADK_CAPTURE_MESSAGE_CONTENT_IN_SPANS"]
)
async def test_message_content_can_be_left_out_of_spans(tracing, monkeypatch, variable):
    monkeypatch.setenv(variable, "false")
    model = ScriptedModel([function_call("subtract", {"a": 3, "b": 1}), "cannot"])
    agent = LlmAgent(name="calc", model=model, tools=[add])

    await TestRunner(agent).run("secret question")

    for call in tracing.named("call_llm"):
        assert call.attributes is not None
        assert call.attributes["gcp.vertex.agent.llm_request"] == "{}"
        assert call.attributes["gcp.vertex.agent.llm_response"] == "{}"
        assert call.attributes["gen_ai.request.model"] == "scripted"  # not content: kept
    tool = tracing.one("execute_tool subtract")
    assert tool.attributes is not None
    assert tool.attributes["gcp.vertex.agent.tool_call_args"] == "{}"
    assert tool.attributes["gcp.vertex.agent.tool_response"] == "{}"
    assert tool.status.description == "the tool returned an error"
    recorded = json.dumps([dict(s.attributes or {}) for s in tracing.spans()])
    assert "secret question" not in recorded and "subtract" in recorded


async def test_long_content_is_cut_and_marked(tracing):
    long_text = "x" * 20_000
    agent = LlmAgent(name="echo", model=ScriptedModel(["ok"]))

    await TestRunner(agent).run(long_text)

    call = tracing.one("call_llm")
    assert call.attributes is not None
    request = str(call.attributes["gcp.vertex.agent.llm_request"])
    assert len(request) < 17_000
    size = call.attributes["pyadk.llm.request.size"]
    assert isinstance(size, int) and size > 20_000
    assert request.endswith(f"...[truncated, {size} characters]")


_BLOCK_OPENTELEMETRY = """
import sys

class BlockOpenTelemetry:
    def find_spec(self, name, path=None, target=None):
        if name == "{prefix}" or name.startswith("{prefix}."):
            raise ModuleNotFoundError(f"No module named {{name!r}} (blocked by the test)")
        return None

sys.meta_path.insert(0, BlockOpenTelemetry())
"""


def _run_python(code: str, block: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYADK_DEFAULT_MODEL": "none"}
    program = _BLOCK_OPENTELEMETRY.format(prefix=block) + textwrap.dedent(code)
    return subprocess.run(
        [sys.executable, "-c", program],
        capture_output=True,
        text=True,
        env=env,
        timeout=SUBPROCESS_TIMEOUT,
        check=False,
    )


def test_pyadk_runs_without_opentelemetry_installed():
    result = _run_python(
        """
        import asyncio, json
        try:
            import opentelemetry
            raise SystemExit("opentelemetry was importable")
        except ImportError:
            pass
        from pyadk import telemetry
        from pyadk.agents import LlmAgent, SequentialAgent
        from pyadk.testing import ScriptedModel, TestRunner, function_call

        def add(a: int, b: int) -> int:
            \"\"\"Adds two numbers.\"\"\"
            return a + b

        model = ScriptedModel([function_call("add", {"a": 1, "b": 2}), "3"])
        agent = SequentialAgent(
            name="pipeline", sub_agents=[LlmAgent(name="calc", model=model, tools=[add])]
        )
        events = asyncio.run(TestRunner(agent).run("1+2?"))
        print(json.dumps({
            "tracing": telemetry.is_tracing(),
            "answer": events[-1].content.parts[0].text,
            "tool": events[1].content.parts[0].function_response.response,
            "otel_loaded": sorted(m for m in sys.modules if m.startswith("opentelemetry")),
        }))
        """,
        block="opentelemetry",
    )

    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == {
        "tracing": False,
        "answer": "3",
        "tool": {"result": 3},
        "otel_loaded": [],
    }


def test_the_server_refuses_trace_without_the_opentelemetry_sdk():
    result = _run_python(
        """
        from pyadk.agents import LlmAgent
        from pyadk.server.app import create_app
        from pyadk.testing import ScriptedModel

        agent = LlmAgent(name="chat", model=ScriptedModel(["hi"]))
        create_app(agents={"chat": agent})  # without trace: fine
        try:
            create_app(agents={"chat": agent}, trace=True)
        except RuntimeError as error:
            print(error)
        """,
        block="opentelemetry.sdk",
    )

    assert result.returncode == 0, result.stderr
    assert "Tracing needs the OpenTelemetry SDK" in result.stdout
    assert "pip install opentelemetry-sdk" in result.stdout


async def test_a_provider_for_pyadk_alone_leaves_the_global_one_alone(no_global_provider):
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))

    with telemetry.use_tracer_provider(provider):
        assert telemetry.is_tracing()
        await TestRunner(_calc()).run("1+2?")
    await TestRunner(_calc(), session_id="after").run("1+2?")  # not traced

    assert not telemetry.is_tracing()
    assert isinstance(trace.get_tracer_provider(), trace.ProxyTracerProvider)  # untouched
    names = sorted(s.name for s in exporter.get_finished_spans())
    assert names == ["call_llm", "call_llm", "execute_tool add", "invocation", "invoke_agent calc"]


async def test_pyadks_own_provider_wins_over_the_global_one(tracing):
    mine = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(mine))

    telemetry.set_tracer_provider(provider)
    try:
        await TestRunner(_calc()).run("1+2?")
    finally:
        telemetry.set_tracer_provider(None)
    await TestRunner(_calc(), session_id="global").run("1+2?")

    assert len(mine.get_finished_spans()) == 5
    assert len(tracing.spans()) == 5  # the second turn went to the global provider
