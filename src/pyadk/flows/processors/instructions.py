"""Instructions processor: global instruction, then the agent's instruction, templated."""

from __future__ import annotations

from pyadk.agents.invocation_context import InvocationContext
from pyadk.agents.llm_agent import LlmAgent
from pyadk.agents.readonly_context import ReadonlyContext
from pyadk.flows.processors.base import SilentRequestProcessor
from pyadk.models.llm_request import LlmRequest
from pyadk.utils.instructions_utils import inject_session_state


class InstructionsRequestProcessor(SilentRequestProcessor):
    """Appends the root's global instruction and the agent's instruction.

    String instructions are templates; provider results are used as returned.
    """

    async def process(self, invocation_context: InvocationContext, llm_request: LlmRequest) -> None:
        agent = invocation_context.agent
        if not isinstance(agent, LlmAgent):
            return
        readonly = ReadonlyContext(invocation_context)
        root = agent.root_agent
        if isinstance(root, LlmAgent) and root.global_instruction:
            text, bypass = await root.canonical_global_instruction(readonly)
            if not bypass:
                text = await inject_session_state(text, readonly, agent_name=root.name)
            llm_request.append_instructions([text])
        if agent.instruction:
            text, bypass = await agent.canonical_instruction(readonly)
            if not bypass:
                text = await inject_session_state(text, readonly)
            llm_request.append_instructions([text])


request_processor = InstructionsRequestProcessor()
