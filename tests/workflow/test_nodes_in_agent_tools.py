"""A Workflow or node in an LlmAgent's tools becomes a NodeTool (google-adk 2.x)."""

from __future__ import annotations

import pytest

from pyadk.agents import LlmAgent
from pyadk.testing import ScriptedModel, TestRunner, function_call
from pyadk.tools import NodeTool
from pyadk.workflow import START, Workflow, node


def double(node_input: int) -> int:
    return node_input * 2


async def test_a_workflow_in_tools_runs_as_a_node_tool() -> None:
    flow = Workflow(name="doubler", edges=[(START, double)], description="Doubles a number.")
    model = ScriptedModel([function_call("doubler", {"request": 21}), "42 it is."])
    agent = LlmAgent(name="calc", model=model, tools=[flow])

    events = await TestRunner(agent).run("double 21")

    [tool] = await agent.canonical_tools()
    assert isinstance(tool, NodeTool) and tool.description == "Doubles a number."
    results = [r.response for e in events if not e.partial for r in e.get_function_responses()]
    assert results == [{"result": 42}]
    assert events[-1].text == "42 it is."


async def test_a_single_node_in_tools_is_wrapped_too() -> None:
    agent = LlmAgent(name="calc", model=ScriptedModel(["ok"]), tools=[node(double, name="dbl")])

    [tool] = await agent.canonical_tools()

    assert isinstance(tool, NodeTool) and tool.name == "dbl"


async def test_another_agent_in_tools_is_refused_clearly() -> None:
    helper = LlmAgent(name="helper", model=ScriptedModel(["hi"]))
    agent = LlmAgent(name="calc", model=ScriptedModel(["ok"]), tools=[helper])

    with pytest.raises(ValueError, match="Agent 'helper' cannot be used directly as a tool"):
        await agent.canonical_tools()
