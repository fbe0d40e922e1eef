"""exit_loop: a tool that ends the enclosing LoopAgent."""

from __future__ import annotations

from pyadk.tools.tool_context import ToolContext


def exit_loop(tool_context: ToolContext) -> dict[str, str]:
    """Exits the loop.

    Call this function only when you are instructed to do so.
    """
    tool_context.actions.escalate = True
    tool_context.actions.skip_summarization = True
    return {"status": "loop exited"}
