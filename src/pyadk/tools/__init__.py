"""Tools: function tools, toolsets, agent tools and built-ins."""

from pyadk.tools.agent_tool import AgentTool
from pyadk.tools.base_tool import BaseTool
from pyadk.tools.base_toolset import BaseToolset, ToolPredicate
from pyadk.tools.exit_loop_tool import exit_loop
from pyadk.tools.function_tool import FunctionTool
from pyadk.tools.load_artifacts_tool import load_artifacts
from pyadk.tools.load_web_page import load_web_page, make_load_web_page  # not lazy: see below
from pyadk.tools.long_running_tool import LongRunningFunctionTool
from pyadk.tools.memory_tools import load_memory, preload_memory
from pyadk.tools.tool_confirmation import ToolConfirmation
from pyadk.tools.tool_context import ToolContext
from pyadk.tools.transfer_to_agent_tool import transfer_to_agent

__all__ = [
    "AgentTool",
    "BaseTool",
    "BaseToolset",
    "ExampleTool",
    "FunctionTool",
    "LongRunningFunctionTool",
    "NodeTool",
    "ToolConfirmation",
    "ToolContext",
    "ToolPredicate",
    "ToolProgress",
    "exit_loop",
    "get_user_choice",
    "google_search",
    "load_artifacts",
    "load_memory",
    "load_web_page",
    "make_load_web_page",
    "preload_memory",
    "transfer_to_agent",
    "url_context",
]


# load_web_page is imported above, not here: it is also a submodule's name, and once that
# module is imported the package attribute would be the module, not the tool.
def __getattr__(name: str) -> object:
    # Loaded on first use: most agents need neither (and the import stays light).
    if name == "ExampleTool":
        from pyadk.tools.example_tool import ExampleTool

        return ExampleTool
    if name in ("google_search", "url_context"):
        from pyadk.tools import gemini_builtin_tools

        return getattr(gemini_builtin_tools, name)
    if name == "NodeTool":
        from pyadk.tools.node_tool import NodeTool

        return NodeTool
    if name == "ToolProgress":
        from pyadk.tools.tool_progress import ToolProgress

        return ToolProgress
    if name == "get_user_choice":
        from pyadk.tools.get_user_choice_tool import get_user_choice_tool

        return get_user_choice_tool
    raise AttributeError(f"module 'pyadk.tools' has no attribute {name!r}")
