"""The web dev UI shows a running call's latest tool_progress on its pending line."""

from __future__ import annotations

import asyncio
import threading

from ui_support import open_ui

from pyadk.agents import LlmAgent
from pyadk.server import create_app
from pyadk.testing import ScriptedModel, function_call
from pyadk.tools import AgentTool, FunctionTool, ToolContext


def test_the_running_call_shows_its_progress_then_its_result(serve, page):
    gate = threading.Event()

    async def deploy(tool_context: ToolContext) -> str:
        """Deploys."""
        tool_context.report_progress({"uploaded": 3, "of": 4})
        await asyncio.to_thread(gate.wait, 30)
        return "deployed"

    model = ScriptedModel([function_call("deploy"), "Deployed."])
    agent = LlmAgent(name="ops", model=model, tools=[FunctionTool(deploy, streams_progress=True)])
    server = serve(create_app(agents={"ops": agent}, web_ui=True))
    try:
        open_ui(page, server.url, app="ops")
        page.fill("#message", "deploy")
        page.click("#send")
        pending = page.locator("#thinking .entry.tool .result.pending")
        page.wait_for_function(
            "() => document.querySelector('#thinking .entry.tool .result.pending')"
            "?.textContent.includes('uploaded')"
        )
        assert pending.inner_text() == 'running… {"uploaded":3,"of":4}'
    finally:
        gate.set()
    page.wait_for_selector("body[data-sent='1']")
    tool = page.locator("#thinking .entry.tool")
    assert '"deployed"' in tool.locator(".result-json pre").inner_text()


def test_a_sub_agents_steps_show_on_the_agent_tool_call(serve, page):
    gate = threading.Event()

    async def lookup(city: str) -> dict:
        """Looks a city up.

        Args:
          city: the city.
        """
        return {"weather": "sunny"}

    async def wait_a_bit() -> str:
        """Waits for the test."""
        await asyncio.to_thread(gate.wait, 30)
        return "waited"

    researcher = LlmAgent(
        name="researcher",
        model=ScriptedModel(
            [function_call("lookup", {"city": "Oslo"}), function_call("wait_a_bit"), "Sunny."]
        ),
        tools=[lookup, wait_a_bit],
    )
    boss = LlmAgent(
        name="boss",
        model=ScriptedModel([function_call("researcher", {"request": "Oslo?"}), "It is sunny."]),
        tools=[AgentTool(researcher, stream_events=True)],
    )
    server = serve(create_app(agents={"boss": boss}, web_ui=True))
    try:
        open_ui(page, server.url, app="boss")
        page.fill("#message", "weather?")
        page.click("#send")
        page.wait_for_function(
            "() => document.querySelector('#thinking .entry.tool .result.pending')"
            "?.textContent.includes('called wait_a_bit')"
        )
        pending = page.locator("#thinking .entry.tool .result.pending")
        assert pending.inner_text() == "running… researcher: called wait_a_bit"
    finally:
        gate.set()
    page.wait_for_selector("body[data-sent='1']")
    assert page.locator("#thinking .entry.tool").count() == 1  # the sub-agent's calls stay inside
