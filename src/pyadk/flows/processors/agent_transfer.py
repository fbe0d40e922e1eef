"""Agent-transfer processor: offers the ``transfer_to_agent`` tool and explains targets."""

from __future__ import annotations

from functools import lru_cache

from pyadk.agents.base_agent import BaseAgent
from pyadk.agents.invocation_context import InvocationContext
from pyadk.agents.llm_agent import LlmAgent
from pyadk.flows.processors.base import SyncRequestProcessor
from pyadk.models.llm_request import LlmRequest
from pyadk.tools.transfer_to_agent_tool import TransferToAgentTool


def transfer_instruction(agent: LlmAgent, targets: list[BaseAgent]) -> str:
    """The system-instruction text describing where ``agent`` may transfer."""
    lines = [
        "You can hand the conversation to another agent when it is better suited to "
        "answer. These agents are available:",
        "",
    ]
    lines += [f"- {t.name}: {t.description or '(no description)'}" for t in targets]
    lines += [
        "",
        "If you can answer yourself, answer. Otherwise call `transfer_to_agent` with the "
        "agent's name; do not announce the transfer in text.",
    ]
    parent = agent.parent_agent
    if parent is not None and any(t is parent for t in targets):
        lines.append(
            f"If none of these fit, or the request is outside your scope, transfer back to "
            f"your parent agent {parent.name}."
        )
    return "\n".join(lines)


class AgentTransferRequestProcessor(SyncRequestProcessor):
    """Adds ``transfer_to_agent`` limited to sub-agents, and parent/peers when allowed."""

    def process_now(self, invocation_context: InvocationContext, llm_request: LlmRequest) -> None:
        agent = invocation_context.agent
        if not isinstance(agent, LlmAgent):
            return
        targets = agent.transfer_targets()
        if not targets:
            return
        llm_request.append_instructions([transfer_instruction(agent, targets)])
        llm_request.append_tools([_transfer_tool(tuple(t.name for t in targets))])


request_processor = AgentTransferRequestProcessor()


@lru_cache(maxsize=256)
def _transfer_tool(allowed: tuple[str, ...]) -> TransferToAgentTool:
    return TransferToAgentTool(list(allowed))
