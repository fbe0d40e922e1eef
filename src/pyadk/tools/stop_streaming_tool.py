"""stop_streaming: the tool a live model calls to stop a streaming tool.

A live run offers it when the agent has streaming (async-generator) tools; a tool of
the agent named ``stop_streaming`` (as in google-adk's samples) stops them the same way.
"""

from __future__ import annotations

from pyadk.tools.tool_context import ToolContext

STOP_STREAMING = "stop_streaming"


async def stop_streaming(function_name: str, tool_context: ToolContext) -> dict[str, str]:
    """Stops a streaming function that is running in the background.

    Args:
        function_name: The name of the streaming function to stop.
    """
    from pyadk.flows.live_streaming_tools import stop_streaming_calls

    return await stop_streaming_calls(tool_context._invocation_context, function_name)
