"""Calls of tool names the agent does not have: callbacks first, then an error result."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from pyadk.agents import LlmAgent
from pyadk.events.event import Event
from pyadk.plugins import BasePlugin, ReflectAndRetryToolPlugin
from pyadk.testing import ScriptedModel, TestRunner, function_call
from pyadk.tools import BaseTool, ToolContext


def lookup(city: str) -> dict[str, Any]:
    """Looks a city up."""
    return {"city": city}


def results(events: list[Event]) -> list[dict[str, Any]]:
    return [r.response or {} for e in events for r in e.get_function_responses()]


def agent_calling(name: str, **callbacks: Any) -> LlmAgent:
    model = ScriptedModel([function_call(name, {"city": "Oslo"}), "Done."])
    return LlmAgent(name="guide", model=model, tools=[lookup], **callbacks)


async def test_without_callbacks_the_model_is_told_which_tools_exist(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.WARNING, logger="pyadk.flows.unknown_tools"):
        events = await TestRunner(agent_calling("lookup_city")).run("Where?")

    assert results(events) == [
        {
            "error": "Tool 'lookup_city' is not available to agent 'guide'. "
            "Available tools: lookup. Call only a tool from that list."
        }
    ]
    assert events[-1].text == "Done."
    assert "Tool 'lookup_city' is not available" in caplog.text


async def test_a_before_tool_callback_can_answer_a_made_up_name() -> None:
    seen: list[tuple[str, dict[str, Any], str]] = []

    def before(tool: BaseTool, args: dict[str, Any], tool_context: ToolContext) -> Any:
        seen.append((tool.name, args, tool.description))
        if tool.name == "lookup_city":
            return lookup(**args)  # an alias the model keeps using
        return None

    after_calls: list[str] = []

    def after(**kwargs: Any) -> None:
        after_calls.append(kwargs["tool"].name)

    agent = agent_calling("lookup_city", before_tool_callback=before, after_tool_callback=after)
    events = await TestRunner(agent).run("Where?")

    assert results(events) == [{"city": "Oslo"}]
    assert seen == [("lookup_city", {"city": "Oslo"}, "Tool not found")]
    assert after_calls == []  # no tool ran


async def test_the_tool_error_callback_gets_a_value_error_and_may_answer() -> None:
    errors: list[BaseException] = []

    def on_error(
        tool: BaseTool, args: dict[str, Any], tool_context: ToolContext, error: Exception
    ) -> Any:
        errors.append(error)
        return {"error": "no such tool; use lookup"}

    events = await TestRunner(agent_calling("find", on_tool_error_callback=on_error)).run("?")

    assert results(events) == [{"error": "no such tool; use lookup"}]
    assert len(errors) == 1 and isinstance(errors[0], ValueError)
    assert "Available tools: lookup" in str(errors[0])


async def test_plugins_see_the_call_before_the_agents_callbacks() -> None:
    order: list[str] = []

    class Watch(BasePlugin):
        async def before_tool_callback(self, *, tool: BaseTool, **_: Any) -> None:
            order.append(f"plugin before {tool.name}")

        async def on_tool_error_callback(
            self, *, tool: BaseTool, error: Exception, **_: Any
        ) -> Any:
            order.append(f"plugin error {type(error).__name__}")
            return {"error": "answered by the plugin"}

    def agent_error(**_: Any) -> Any:
        order.append("agent error")
        return {"error": "answered by the agent"}

    agent = agent_calling("find", on_tool_error_callback=agent_error)
    events = await TestRunner(agent, plugins=[Watch(name="watch")]).run("?")

    assert results(events) == [{"error": "answered by the plugin"}]
    assert order == ["plugin before find", "plugin error ValueError"]


async def test_the_retry_plugin_counts_made_up_names_and_gives_up_past_its_limit() -> None:
    model = ScriptedModel([function_call("find", {"city": "Oslo"})] * 3 + ["Done."])
    agent = LlmAgent(name="guide", model=model, tools=[lookup])
    plugin = ReflectAndRetryToolPlugin(max_retries=1)

    with pytest.raises(Exception, match="Tool 'find' is not available"):
        await TestRunner(agent, plugins=[plugin]).run("?")
