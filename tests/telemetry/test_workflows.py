"""Traces of workflow agents: sequential and parallel agents, and concurrent tool calls."""

from __future__ import annotations

import asyncio
import json

from pyadk import types
from pyadk.agents import LlmAgent, ParallelAgent, SequentialAgent
from pyadk.testing import ScriptedModel, TestRunner, function_call


def _worker(name: str, answer: str) -> LlmAgent:
    return LlmAgent(name=name, model=ScriptedModel([answer]))


def skip_me(callback_context) -> types.Content:
    return types.Content(role="model", parts=[types.Part(text="skipped")])


async def test_sequential_steps_are_children_of_the_pipeline_span(tracing):
    pipeline = SequentialAgent(
        name="pipeline",
        sub_agents=[
            _worker("fetch", "data"),
            LlmAgent(name="check", model=ScriptedModel([]), before_agent_callback=skip_me),
            _worker("report", "done"),
        ],
    )

    await TestRunner(pipeline).run("go")

    invocation = tracing.one("invocation")
    assert tracing.children(invocation) == ["invoke_agent pipeline"]
    root = tracing.one("invoke_agent pipeline")
    assert tracing.children(root) == [
        "invoke_agent fetch",
        "invoke_agent check",
        "invoke_agent report",
    ]
    assert tracing.children(tracing.one("invoke_agent fetch")) == ["call_llm"]
    assert tracing.children(tracing.one("invoke_agent report")) == ["call_llm"]
    check = tracing.one("invoke_agent check")
    assert tracing.children(check) == []  # the callback answered: no model call
    assert check.attributes is not None
    assert check.attributes["pyadk.agent.outcome"] == "skipped"
    assert check.attributes["pyadk.agent.outcome.reason"] == (
        "before_agent_callback returned content"
    )
    assert root.attributes is not None and root.attributes["pyadk.agent.type"] == "SequentialAgent"
    assert tracing.open_spans.open == {}


async def interleave(step: str) -> str:
    """Yields to the event loop a few times, so that parallel branches interleave."""
    for _ in range(3):
        await asyncio.sleep(0)
    return step


async def test_parallel_branches_each_nest_their_own_model_and_tool_spans(tracing):
    branches = [
        LlmAgent(
            name=f"branch{i}",
            model=ScriptedModel([function_call("interleave", {"step": f"s{i}"}), f"done {i}"]),
            tools=[interleave],
        )
        for i in range(4)
    ]
    fan = ParallelAgent(name="fan", sub_agents=branches)

    await TestRunner(fan).run("go")

    root = tracing.one("invoke_agent fan")
    assert sorted(tracing.children(root)) == [f"invoke_agent branch{i}" for i in range(4)]
    for i in range(4):
        branch = tracing.one(f"invoke_agent branch{i}")
        assert tracing.children(branch) == ["call_llm", "execute_tool interleave", "call_llm"]
        for span in tracing.spans():
            if tracing.parent_of(span) is branch:
                assert span.attributes is not None
                assert span.attributes["gen_ai.agent.name"] == f"branch{i}"
        tool = next(
            s for s in tracing.named("execute_tool interleave") if tracing.parent_of(s) is branch
        )
        assert tool.attributes is not None
        assert json.loads(str(tool.attributes["gcp.vertex.agent.tool_call_args"])) == {
            "step": f"s{i}"
        }
    assert tracing.open_spans.open == {}


def add(a: int, b: int) -> int:
    """Adds two numbers."""
    return a + b


async def test_concurrent_tool_calls_get_one_span_each_and_a_merged_span(tracing):
    model = ScriptedModel(
        [[function_call("add", {"a": 1, "b": 2}), function_call("add", {"a": 3, "b": 4})], "3, 7"]
    )
    agent = LlmAgent(name="calc", model=model, tools=[add])

    _, response_event, _ = await TestRunner(agent).run("1+2 and 3+4?")

    agent_span = tracing.one("invoke_agent calc")
    assert tracing.children(agent_span) == [
        "call_llm",
        "execute_tool add",
        "execute_tool add",
        "execute_tool (merged)",
        "call_llm",
    ]
    results = sorted(
        json.loads(str(s.attributes["gcp.vertex.agent.tool_response"]))["result"]
        for s in tracing.named("execute_tool add")
        if s.attributes is not None
    )
    assert results == [3, 7]
    merged = tracing.one("execute_tool (merged)")
    assert merged.attributes is not None
    assert merged.attributes["gcp.vertex.agent.event_id"] == response_event.id
    assert merged.attributes["pyadk.tool.calls"] == 2
    for span in tracing.named("execute_tool add"):
        assert span.attributes is not None
        assert span.attributes["gcp.vertex.agent.event_id"] == response_event.id
