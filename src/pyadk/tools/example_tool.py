"""ExampleTool: few-shot examples added to the agent's system instruction."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import TypeAdapter

from pyadk.examples.base_example_provider import BaseExampleProvider
from pyadk.examples.example import Example
from pyadk.examples.example_util import build_example_si
from pyadk.tools.base_tool import BaseTool

if TYPE_CHECKING:
    from pyadk.models.llm_request import LlmRequest
    from pyadk.tools.tool_context import ToolContext

_EXAMPLES = TypeAdapter(list[Example])


class ExampleTool(BaseTool):
    """Shows the model few-shot examples: a list of :class:`Example`, or a
    :class:`BaseExampleProvider` asked for the examples of each user message.

    Not a function the model calls: before each model call it adds the examples to the
    system instruction (nothing when the turn has no user message, or when a provider
    gets a message without text)."""

    def __init__(self, examples: list[Example] | list[dict[str, Any]] | BaseExampleProvider):
        super().__init__(name="example_tool", description="Adds few-shot examples.")
        if isinstance(examples, BaseExampleProvider):
            self.examples: list[Example] | BaseExampleProvider = examples
        elif isinstance(examples, list):
            self.examples = _EXAMPLES.validate_python(examples)
        else:
            raise TypeError(
                "ExampleTool takes a list of Example (or dicts of them) or a "
                f"BaseExampleProvider, not {type(examples).__name__}."
            )

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        raise NotImplementedError("ExampleTool is not called: it only shapes the request.")

    async def process_llm_request(
        self, *, tool_context: ToolContext, llm_request: LlmRequest
    ) -> None:
        content = tool_context.user_content
        if content is None or not content.parts:
            return
        query = " ".join(part.text for part in content.parts if part.text)
        if not query and isinstance(self.examples, BaseExampleProvider):
            return
        llm_request.append_instructions([build_example_si(self.examples, query, llm_request.model)])
