"""Memory tools: ``load_memory`` (the model searches) and ``preload_memory`` (automatic)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pyadk.tools.base_tool import BaseTool
from pyadk.tools.function_tool import FunctionTool

if TYPE_CHECKING:
    from pyadk.models.llm_request import LlmRequest
    from pyadk.tools.tool_context import ToolContext


async def _load_memory(query: str, tool_context: ToolContext) -> dict[str, Any]:
    """Loads the memory for the current user.

    Args:
      query: the words to search the memory for.
    """
    response = await tool_context.search_memory(query)
    return {
        "memories": [
            {"author": m.author, "timestamp": m.timestamp, "text": m.content.text or ""}
            for m in response.memories
        ]
    }


class LoadMemoryTool(FunctionTool):
    """A tool the model calls to search the user's past conversations."""

    def __init__(self) -> None:
        super().__init__(_load_memory, name="load_memory", idempotent=True)

    async def process_llm_request(
        self, *, tool_context: ToolContext, llm_request: LlmRequest
    ) -> None:
        await super().process_llm_request(tool_context=tool_context, llm_request=llm_request)
        llm_request.append_instructions(
            [
                "You have memory of past conversations with this user. When a question may "
                "relate to them, call `load_memory` to look it up."
            ]
        )


class PreloadMemoryTool(BaseTool):
    """Searches memory with the user's message before every model call and puts what it
    finds in the instruction. The model never calls it."""

    def __init__(self) -> None:
        super().__init__(
            name="preload_memory", description="Preloads memory for the user.", idempotent=True
        )

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        return {"error": "preload_memory is not callable."}

    async def process_llm_request(
        self, *, tool_context: ToolContext, llm_request: LlmRequest
    ) -> None:
        user_content = tool_context.user_content
        query = user_content.text if user_content else None
        if not query:
            return
        response = await tool_context.search_memory(query)
        lines = [
            f"{m.timestamp or ''} {m.author or ''}: {m.content.text or ''}".strip()
            for m in response.memories
        ]
        if lines:
            llm_request.append_instructions(
                [
                    "Past conversations with this user that may help:\n<PAST_CONVERSATIONS>\n"
                    + "\n".join(lines)
                    + "\n</PAST_CONVERSATIONS>"
                ]
            )


load_memory = LoadMemoryTool()
"""The ``load_memory`` tool instance."""
preload_memory = PreloadMemoryTool()
"""The ``preload_memory`` tool instance."""
