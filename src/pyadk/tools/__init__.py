"""Tools: function tools, toolsets, agent tools and built-ins."""

from typing import TYPE_CHECKING, Any

from pyadk.tools.base_tool import BaseTool
from pyadk.tools.base_toolset import BaseToolset, ToolPredicate
from pyadk.tools.function_tool import FunctionTool
from pyadk.tools.load_web_page import load_web_page, make_load_web_page  # not lazy: see below
from pyadk.tools.tool_confirmation import ToolConfirmation
from pyadk.tools.tool_context import ToolContext
from pyadk.tools.transfer_to_agent_tool import transfer_to_agent
from pyadk.utils.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from pyadk.tools.agent_tool import AgentTool
    from pyadk.tools.example_tool import ExampleTool
    from pyadk.tools.exit_loop_tool import exit_loop
    from pyadk.tools.gemini_builtin_tools import google_search, url_context
    from pyadk.tools.langchain_tool import LangchainTool
    from pyadk.tools.load_artifacts_tool import load_artifacts
    from pyadk.tools.long_running_tool import LongRunningFunctionTool
    from pyadk.tools.memory_tools import load_memory, preload_memory
    from pyadk.tools.node_tool import NodeTool
    from pyadk.tools.tool_progress import ToolProgress

__all__ = [
    "AgentTool",
    "BaseTool",
    "BaseToolset",
    "ExampleTool",
    "FunctionTool",
    "LangchainTool",
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

# The other tools load on first use: most agents need few of them, and the import stays
# light. load_web_page is imported above, not here: it is also a submodule's name, and
# once that module is imported the package attribute would be the module, not the tool.
_lazy_getattr, _lazy_dir = lazy_exports(
    __name__,
    {
        "AgentTool": ".agent_tool",
        "ExampleTool": ".example_tool",
        "LangchainTool": ".langchain_tool",  # needs the langchain extra
        "LongRunningFunctionTool": ".long_running_tool",
        "NodeTool": ".node_tool",
        "ToolProgress": ".tool_progress",
        "exit_loop": ".exit_loop_tool",
        "google_search": ".gemini_builtin_tools",
        "load_artifacts": ".load_artifacts_tool",
        "load_memory": ".memory_tools",
        "preload_memory": ".memory_tools",
        "url_context": ".gemini_builtin_tools",
    },
    globals(),
)


def __getattr__(name: str) -> Any:
    if name == "get_user_choice":  # the tool, not the function it wraps
        from pyadk.tools.get_user_choice_tool import get_user_choice_tool

        return get_user_choice_tool
    return _lazy_getattr(name)


def __dir__() -> list[str]:
    return sorted({*_lazy_dir(), "get_user_choice"})
