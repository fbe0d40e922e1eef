"""Tools: function tools, toolsets, agent tools and built-ins."""

from pyadk.tools.base_tool import BaseTool
from pyadk.tools.base_toolset import BaseToolset, ToolPredicate
from pyadk.tools.exit_loop_tool import exit_loop
from pyadk.tools.function_tool import FunctionTool
from pyadk.tools.long_running_tool import LongRunningFunctionTool
from pyadk.tools.tool_context import ToolContext
from pyadk.tools.transfer_to_agent_tool import transfer_to_agent

__all__ = [
    "BaseTool",
    "BaseToolset",
    "FunctionTool",
    "LongRunningFunctionTool",
    "ToolContext",
    "ToolPredicate",
    "exit_loop",
    "transfer_to_agent",
]
