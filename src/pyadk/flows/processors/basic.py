"""Basic processor: model name and a private copy of the generation config."""

from __future__ import annotations

from pyadk import types
from pyadk.agents.invocation_context import InvocationContext
from pyadk.agents.llm_agent import LlmAgent
from pyadk.flows.processors.base import SilentRequestProcessor
from pyadk.models.llm_request import LlmRequest


class BasicRequestProcessor(SilentRequestProcessor):
    """Sets ``model`` and copies the agent's ``generate_content_config`` into the request."""

    async def process(self, invocation_context: InvocationContext, llm_request: LlmRequest) -> None:
        agent = invocation_context.agent
        if isinstance(agent, LlmAgent):
            llm_request.model = agent.canonical_model.model
            config = agent.generate_content_config
            llm_request.config = (
                config.model_copy(deep=True) if config else types.GenerateContentConfig()
            )


request_processor = BasicRequestProcessor()
