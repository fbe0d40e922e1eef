"""One traced turn: span names, nesting, and the attributes a trace viewer shows."""

from __future__ import annotations

import json

from pyadk import types
from pyadk.agents import LlmAgent
from pyadk.agents.run_config import RunConfig, StreamingMode
from pyadk.testing import ScriptedModel, Stream, TestRunner, function_call


def add(a: int, b: int) -> int:
    """Adds two numbers."""
    return a + b


def _calc(model: ScriptedModel) -> LlmAgent:
    return LlmAgent(name="calc", description="Adds numbers", model=model, tools=[add])


async def test_a_tool_turn_nests_invocation_agent_model_and_tool_spans(tracing):
    usage = types.UsageMetadata(prompt_token_count=12, candidates_token_count=3)
    model = ScriptedModel([function_call("add", {"a": 1, "b": 2}), Stream(["3"], usage=usage)])
    runner = TestRunner(_calc(model), app_name="maths")

    events = await runner.run("what is 1+2?")

    answer = events[-1]
    assert len(events) == 3
    assert sorted(tracing.names()) == sorted(
        ["invocation", "invoke_agent calc", "call_llm", "call_llm", "execute_tool add"]
    )
    invocation = tracing.one("invocation")
    agent = tracing.one("invoke_agent calc")
    assert invocation.parent is None
    assert tracing.parent_of(agent) is invocation
    assert tracing.children(agent) == ["call_llm", "execute_tool add", "call_llm"]
    assert {s.context.trace_id for s in tracing.spans()} == {invocation.context.trace_id}
    assert tracing.open_spans.open == {}

    assert invocation.attributes is not None
    assert dict(invocation.attributes) == {
        "pyadk.app_name": "maths",
        "gen_ai.conversation.id": "test_session",
        "gcp.vertex.agent.session_id": "test_session",
        "gcp.vertex.agent.invocation_id": answer.invocation_id,
        "pyadk.invocation.events": 3,
    }
    assert agent.attributes is not None
    assert agent.attributes["gen_ai.operation.name"] == "invoke_agent"
    assert agent.attributes["gen_ai.agent.name"] == "calc"
    assert agent.attributes["gen_ai.agent.description"] == "Adds numbers"
    assert agent.attributes["pyadk.agent.type"] == "LlmAgent"
    assert agent.attributes["pyadk.agent.outcome"] == "success"


async def test_model_call_spans_carry_model_tokens_finish_reason_and_the_event_id(tracing):
    usage = types.UsageMetadata(prompt_token_count=12, candidates_token_count=3)
    model = ScriptedModel([function_call("add", {"a": 1, "b": 2}), Stream(["3"], usage=usage)])
    call_event, _, answer = await TestRunner(_calc(model)).run("what is 1+2?")

    first, second = sorted(tracing.named("call_llm"), key=lambda s: s.start_time or 0)
    assert first.attributes is not None and second.attributes is not None
    assert first.attributes["gen_ai.operation.name"] == "generate_content"
    assert first.attributes["gen_ai.request.model"] == "scripted"
    assert first.attributes["gen_ai.agent.name"] == "calc"
    assert first.attributes["gcp.vertex.agent.event_id"] == call_event.id
    assert first.attributes["gen_ai.response.finish_reasons"] == ("stop",)
    assert first.attributes["pyadk.llm.request.contents"] == 1
    assert "gen_ai.usage.input_tokens" not in first.attributes  # the model reported none

    request = json.loads(str(first.attributes["gcp.vertex.agent.llm_request"]))
    assert request["model"] == "scripted"
    assert request["contents"] == [{"role": "user", "parts": [{"text": "what is 1+2?"}]}]
    assert first.attributes["pyadk.llm.request.size"] == len(
        str(first.attributes["gcp.vertex.agent.llm_request"])
    )
    response = json.loads(str(first.attributes["gcp.vertex.agent.llm_response"]))
    assert response["content"]["parts"][0]["function_call"]["name"] == "add"

    assert second.attributes["gcp.vertex.agent.event_id"] == answer.id
    assert second.attributes["gen_ai.usage.input_tokens"] == 12
    assert second.attributes["gen_ai.usage.output_tokens"] == 3
    assert second.attributes["pyadk.llm.request.contents"] == 3  # question, call, response


async def test_tool_span_carries_the_tool_its_arguments_and_response(tracing):
    model = ScriptedModel([function_call("add", {"a": 1, "b": 2}), "3"])
    call_event, response_event, _ = await TestRunner(_calc(model)).run("what is 1+2?")

    tool = tracing.one("execute_tool add")
    assert tool.attributes is not None
    assert tool.attributes["gen_ai.operation.name"] == "execute_tool"
    assert tool.attributes["gen_ai.tool.name"] == "add"
    assert tool.attributes["gen_ai.tool.description"] == "Adds two numbers."
    assert tool.attributes["gen_ai.tool.type"] == "FunctionTool"
    assert tool.attributes["gen_ai.tool.call.id"] == call_event.get_function_calls()[0].id
    assert tool.attributes["gen_ai.agent.name"] == "calc"
    assert tool.attributes["gcp.vertex.agent.event_id"] == response_event.id
    assert json.loads(str(tool.attributes["gcp.vertex.agent.tool_call_args"])) == {"a": 1, "b": 2}
    assert json.loads(str(tool.attributes["gcp.vertex.agent.tool_response"])) == {"result": 3}
    assert tool.status.is_ok


async def test_the_model_span_ends_when_the_model_answered_not_after_the_tools(tracing):
    model = ScriptedModel([function_call("add", {"a": 1, "b": 2}), "3"])
    await TestRunner(_calc(model)).run("what is 1+2?")

    first, _ = sorted(tracing.named("call_llm"), key=lambda s: s.start_time or 0)
    tool = tracing.one("execute_tool add")
    assert first.end_time is not None and tool.start_time is not None
    assert first.end_time <= tool.start_time


async def test_streamed_answer_gives_one_model_span_with_the_final_event_id(tracing):
    usage = types.UsageMetadata(prompt_token_count=5, candidates_token_count=4)
    model = ScriptedModel([Stream(["He", "llo"], usage=usage)])
    runner = TestRunner(LlmAgent(name="talker", model=model))

    events = await runner.run("hi", run_config=RunConfig(streaming_mode=StreamingMode.SSE))

    final = [e for e in events if not e.partial]
    assert len(events) == 3 and len(final) == 1
    span = tracing.one("call_llm")
    assert span.attributes is not None
    assert span.attributes["gcp.vertex.agent.event_id"] == final[0].id
    assert span.attributes["gen_ai.usage.output_tokens"] == 4
    assert tracing.one("invocation").attributes["pyadk.invocation.events"] == 3  # type: ignore[index]


async def test_model_config_parameters_are_recorded(tracing):
    agent = LlmAgent(
        name="tuned",
        model=ScriptedModel(["ok"]),
        generate_content_config=types.GenerateContentConfig(
            temperature=0.2, top_p=0.9, max_output_tokens=64
        ),
    )
    await TestRunner(agent).run("hi")

    span = tracing.one("call_llm")
    assert span.attributes is not None
    assert span.attributes["gen_ai.request.temperature"] == 0.2
    assert span.attributes["gen_ai.request.top_p"] == 0.9
    assert span.attributes["gen_ai.request.max_tokens"] == 64
    assert "gen_ai.request.top_k" not in span.attributes
