"""Failures in traces: a failing tool, a tool error result, a failing or refusing model."""

from __future__ import annotations

import pytest
from opentelemetry.trace import StatusCode

from pyadk import types
from pyadk.agents import LlmAgent
from pyadk.models.llm_response import LlmResponse
from pyadk.testing import ScriptedModel, TestRunner, function_call


def explode() -> str:
    """Always fails."""
    raise RuntimeError("disk on fire")


def add(a: int, b: int) -> int:
    """Adds two numbers."""
    return a + b


async def test_a_tool_that_raises_fails_its_span_the_agent_and_the_invocation(tracing):
    agent = LlmAgent(name="ops", model=ScriptedModel([function_call("explode")]), tools=[explode])

    with pytest.raises(RuntimeError, match="disk on fire"):
        await TestRunner(agent).run("go")

    tool = tracing.one("execute_tool explode")
    assert tool.status.status_code is StatusCode.ERROR
    assert tool.status.description == "RuntimeError: disk on fire"
    assert tool.attributes is not None and tool.attributes["error.type"] == "RuntimeError"
    exception = next(e for e in tool.events if e.name == "exception")
    assert exception.attributes is not None
    assert exception.attributes["exception.message"] == "disk on fire"

    agent_span = tracing.one("invoke_agent ops")
    assert agent_span.status.status_code is StatusCode.ERROR
    assert agent_span.attributes is not None
    assert agent_span.attributes["pyadk.agent.outcome"] == "failure"
    assert agent_span.attributes["error.type"] == "RuntimeError"
    assert tracing.one("invocation").status.status_code is StatusCode.ERROR
    assert tracing.open_spans.open == {}


async def test_an_error_result_fails_the_tool_span_but_not_the_run(tracing):
    model = ScriptedModel([function_call("subtract", {"a": 3}), "I cannot subtract."])
    agent = LlmAgent(name="calc", model=model, tools=[add])

    events = await TestRunner(agent).run("3 - 1?")

    assert events[-1].content is not None
    assert events[-1].content.parts[0].text == "I cannot subtract."
    tool = tracing.one("execute_tool subtract")
    assert tool.status.status_code is StatusCode.ERROR
    assert tool.status.description is not None
    assert "Tool 'subtract' is not available to agent 'calc'" in tool.status.description
    assert tool.attributes is not None
    assert tool.attributes["error.type"] == "tool_error"
    assert "gen_ai.tool.type" not in tool.attributes  # no such tool
    agent_span = tracing.one("invoke_agent calc")
    assert agent_span.status.status_code is StatusCode.UNSET
    assert agent_span.attributes is not None
    assert agent_span.attributes["pyadk.agent.outcome"] == "success"


async def test_a_model_that_raises_fails_the_model_span(tracing):
    agent = LlmAgent(name="asker", model=ScriptedModel([ConnectionError("model down")]))

    with pytest.raises(ConnectionError):
        await TestRunner(agent).run("hi")

    call = tracing.one("call_llm")
    assert call.status.status_code is StatusCode.ERROR
    assert call.attributes is not None
    assert call.attributes["error.type"] == "ConnectionError"
    assert call.attributes["gen_ai.request.model"] == "scripted"
    assert "gcp.vertex.agent.event_id" not in call.attributes  # no event came of it
    assert "gen_ai.response.finish_reasons" not in call.attributes
    agent_span = tracing.one("invoke_agent asker")
    assert agent_span.attributes is not None
    assert agent_span.attributes["pyadk.agent.outcome"] == "failure"


async def test_a_model_error_response_fails_the_model_span_with_its_code(tracing):
    refusal = LlmResponse(
        error_code="SAFETY",
        error_message="Blocked by the safety filter.",
        finish_reason=types.FinishReason.SAFETY,
    )
    agent = LlmAgent(name="asker", model=ScriptedModel([refusal]))

    events = await TestRunner(agent).run("hi")

    error_event = next(e for e in events if e.error_code)
    assert error_event.error_code == "SAFETY"
    call = tracing.one("call_llm")
    assert call.status.status_code is StatusCode.ERROR
    assert call.status.description == "SAFETY: Blocked by the safety filter."
    assert call.attributes is not None
    assert call.attributes["error.type"] == "SAFETY"
    assert call.attributes["pyadk.llm.error_message"] == "Blocked by the safety filter."
    assert call.attributes["gen_ai.response.finish_reasons"] == ("safety",)
    assert call.attributes["gcp.vertex.agent.event_id"] == error_event.id
    agent_span = tracing.one("invoke_agent asker")  # the error response fails the agent
    assert agent_span.status.status_code is StatusCode.ERROR
    assert agent_span.attributes is not None
    assert agent_span.attributes["pyadk.agent.outcome"] == "failure"
    assert agent_span.attributes["pyadk.agent.outcome.reason"] == (
        "model error SAFETY: Blocked by the safety filter."
    )
