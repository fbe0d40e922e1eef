"""Calls of tool names the model made up: callbacks may answer them, else the model is told.

A hallucinated name is the model's mistake to correct, so it never ends the run. The
call still goes through the callback points as google-adk 2.x does: the before-tool
callbacks (plugins first) may answer it, then the tool-error callbacks see a
``ValueError``; when nobody answers, the model gets an error naming the tools it can
call. After-tool callbacks do not run: no tool ran.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from pyadk.agents.llm_agent import LlmAgent
from pyadk.flows.functions import before_tool, on_tool_error
from pyadk.tools.base_tool import BaseTool

if TYPE_CHECKING:
    from pyadk.agents.invocation_context import InvocationContext
    from pyadk.tools.tool_context import ToolContext

logger = logging.getLogger(__name__)


class UnknownTool(BaseTool):
    """Stands for a tool name the model made up, so callbacks see a tool with that name."""

    def __init__(self, name: str, error: ValueError) -> None:
        super().__init__(name=name, description="Tool not found")
        self.error = error

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        raise self.error


def unknown_tool_error(ctx: InvocationContext, name: str, available: list[str]) -> ValueError:
    """The error for a call of ``name``, which the agent does not have."""
    listed = ", ".join(sorted(available)) or "none"
    return ValueError(
        f"Tool {name!r} is not available to agent {ctx.agent.name!r}. Available tools: {listed}."
    )


async def answer_unknown_tool(
    ctx: InvocationContext,
    name: str,
    args: dict[str, Any],
    tool_context: ToolContext,
    available: list[str],
) -> Any:
    """The response to a call of a tool the agent does not have."""
    error = unknown_tool_error(ctx, name, available)
    tool = UnknownTool(name or "<unnamed>", error)
    agent = ctx.agent if isinstance(ctx.agent, LlmAgent) else None
    plugin_kwargs: dict[str, Any] = {"tool": tool, "tool_args": args, "tool_context": tool_context}
    callback_kwargs: dict[str, Any] = {"tool": tool, "args": args, "tool_context": tool_context}
    response = await before_tool(ctx, agent, plugin_kwargs, callback_kwargs)
    if response is None:
        response = await on_tool_error(ctx, agent, plugin_kwargs, callback_kwargs, error)
    if response is None:
        logger.warning("%s", error)
        response = {"error": f"{error} Call only a tool from that list."}
    return response
