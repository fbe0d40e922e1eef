"""RootAgent -> ErrorTestSequence (SequentialAgent) -> Agent A, B, C, D."""

from __future__ import annotations

import logging
from collections.abc import AsyncGenerator

from pyadk.agents import BaseAgent, InvocationContext, SequentialAgent
from pyadk.events import Event
from pyadk.models import BaseLlm

from .sub_agents.agent_a import tools as agent_a_tools
from .sub_agents.agent_a.agent import create_agent_a
from .sub_agents.agent_b.agent import create_agent_b
from .sub_agents.agent_c.agent import create_agent_c
from .sub_agents.agent_d.agent import create_agent_d

logger = logging.getLogger("poc6_sequential_failure")


class RootAgent(BaseAgent):
    """Invokes the sequence and logs its completion."""

    async def _run_async_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        for sub_agent in self.sub_agents:
            async for event in sub_agent.run_async(ctx):
                yield event
        logger.info("Sequence complete")


def create_root_agent(
    scenario: str = "failure",
    model: BaseLlm | str = "",
    models: dict[str, BaseLlm] | None = None,
) -> RootAgent:
    """The PoC's agent tree.

    ``scenario`` is "failure" (Agent A uses FailingTool) or "success" (SucceedingTool).
    ``models`` maps agent names (AgentA..AgentD) to models; others use ``model``, and
    an empty model means the framework's default model.
    """
    if scenario not in ("failure", "success"):
        raise ValueError(f"Unknown scenario {scenario!r}: use 'failure' or 'success'.")
    models = models or {}
    tool = agent_a_tools.failing_tool if scenario == "failure" else agent_a_tools.succeeding_tool
    sequence = SequentialAgent(
        name="ErrorTestSequence",
        description="Runs A, B, C and D in order.",
        sub_agents=[
            create_agent_a(tool=tool, model=models.get("AgentA", model)),
            create_agent_b(model=models.get("AgentB", model)),
            create_agent_c(model=models.get("AgentC", model)),
            create_agent_d(model=models.get("AgentD", model)),
        ],
    )
    return RootAgent(name="RootAgent", description="Runs the PoC 6 sequence.", sub_agents=[sequence])


root_agent = create_root_agent()
