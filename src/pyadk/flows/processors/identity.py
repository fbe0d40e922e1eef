"""Identity processor: tells the model which agent it is."""

from __future__ import annotations

from pyadk.agents.invocation_context import InvocationContext
from pyadk.flows.processors.base import SyncRequestProcessor
from pyadk.models.llm_request import LlmRequest


def identity_instruction(name: str, description: str) -> str:
    """The identity text for an agent."""
    text = f'You are an agent. Your name is "{name}".'
    if description:
        text += f' Your description: "{description}"'
    return text


class IdentityRequestProcessor(SyncRequestProcessor):
    """Adds the agent's name and description to the system instruction."""

    def process_now(self, invocation_context: InvocationContext, llm_request: LlmRequest) -> None:
        agent = invocation_context.agent
        llm_request.append_instructions([identity_instruction(agent.name, agent.description)])


request_processor = IdentityRequestProcessor()
