"""Output-schema processor: structured final answers, with or without tools."""

from __future__ import annotations

from collections.abc import AsyncGenerator

from pyadk.agents.invocation_context import InvocationContext
from pyadk.agents.llm_agent import LlmAgent
from pyadk.events.event import Event
from pyadk.flows.processors.base import BaseLlmRequestProcessor
from pyadk.models.llm_request import LlmRequest
from pyadk.tools.set_model_response_tool import SetModelResponseTool


class OutputSchemaRequestProcessor(BaseLlmRequestProcessor):
    """Asks for JSON matching ``output_schema``.

    Without tools or transfer targets the schema goes to the model as its response
    format. With them, the model keeps calling functions and gives its final answer
    through the ``set_model_response`` tool, whose arguments are the schema.
    """

    async def run_async(
        self, invocation_context: InvocationContext, llm_request: LlmRequest
    ) -> AsyncGenerator[Event, None]:
        agent = invocation_context.agent
        if not isinstance(agent, LlmAgent) or agent.output_schema is None:
            return
        if not agent.tools and not agent.transfer_targets():
            llm_request.set_output_schema(agent.output_schema)
            return
        llm_request.append_instructions(
            [
                "When you have your final answer, call `set_model_response` with it, in "
                "the required structure, instead of answering in text."
            ]
        )
        llm_request.append_tools([SetModelResponseTool(agent.output_schema)])
        return
        yield


request_processor = OutputSchemaRequestProcessor()
