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
        root = agent.root_agent
        if isinstance(root, LlmAgent) and root.global_instruction:
            readonly = ReadonlyContext(invocation_context)
            text, bypass = await root.canonical_global_instruction(readonly)
            if not bypass:
                text = await inject_session_state(text, readonly, agent_name=root.name)
            llm_request.append_instructions([text])
        instruction = agent.instruction
        if not instruction:
            return
        if type(instruction) is str and _plain_canonical_instruction(agent):
            text = instruction  # what canonical_instruction returns for a string
            if "{" in text:  # else a template with nothing to fill (no coroutine made)
                text = await inject_session_state(text, ReadonlyContext(invocation_context))
        else:
            readonly = ReadonlyContext(invocation_context)
            text, bypass = await agent.canonical_instruction(readonly)
            if not bypass:
                text = await inject_session_state(text, readonly)
        llm_request.append_instructions([text])


def _plain_canonical_instruction(agent: LlmAgent) -> bool:
    """True when ``agent``'s class keeps LlmAgent's ``canonical_instruction``."""
    return type(agent).canonical_instruction is LlmAgent.canonical_instruction


request_processor = InstructionsRequestProcessor()
