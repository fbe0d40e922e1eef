"""Basic processor: model name and a private copy of the generation config."""

from __future__ import annotations

from pyadk import types
from pyadk.agents.invocation_context import InvocationContext
from pyadk.agents.llm_agent import LlmAgent
from pyadk.flows.processors.base import SyncRequestProcessor
from pyadk.models.llm_request import LlmRequest
from pyadk.utils.fast_models import construct, copy_model, set_field


class BasicRequestProcessor(SyncRequestProcessor):
    """Sets ``model`` and copies the agent's ``generate_content_config`` into the request."""

    def process_now(self, invocation_context: InvocationContext, llm_request: LlmRequest) -> None:
        agent = invocation_context.agent
        if isinstance(agent, LlmAgent):
            set_field(llm_request, "model", agent.canonical_model.model)
            config = agent.generate_content_config
            if config:
                config = copy_model(config)
            elif "config" in llm_request.model_fields_set:  # set before: start afresh
                config = construct(types.GenerateContentConfig)
            else:  # the request's own default config, new with the request
                config = llm_request.config
            set_field(llm_request, "config", config)


request_processor = BasicRequestProcessor()
