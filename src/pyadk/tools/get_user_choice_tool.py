"""get_user_choice: asks the user to pick one of several options (a long-running tool)."""

from __future__ import annotations

from pyadk.tools.long_running_tool import LongRunningFunctionTool
from pyadk.tools.tool_context import ToolContext


def get_user_choice(options: list[str], tool_context: ToolContext) -> str | None:
    """Shows the options to the user and asks them to choose one."""
    tool_context.actions.skip_summarization = True
    return None


get_user_choice_tool = LongRunningFunctionTool(get_user_choice)
"""The tool: the run pauses until the client answers the call with the user's choice
(a function response for ``get_user_choice``)."""
