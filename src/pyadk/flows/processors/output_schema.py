"""Output-schema processor: structured final answers, with or without tools."""

from __future__ import annotations

from pyadk.agents.invocation_context import InvocationContext
from pyadk.agents.llm_agent import LlmAgent
from pyadk.flows.processors.base import SyncRequestProcessor
from pyadk.models.llm_request import LlmRequest
from pyadk.tools.set_model_response_tool import SetModelResponseTool


class OutputSchemaRequestProcessor(SyncRequestProcessor):
    """Asks for JSON matching ``output_schema``.

    Without tools or transfer targets the schema goes to the model as its response
    format. With them, the model keeps calling functions and gives its final answer
    through the ``set_model_response`` tool, whose arguments are the schema.
    """

    def process_now(self, invocation_context: InvocationContext, llm_request: LlmRequest) -> None:
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


request_processor = OutputSchemaRequestProcessor()
