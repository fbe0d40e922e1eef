"""RootAgent -> ErrorTestSequence(A, B, C; finally D), with on_failure="skip_rest"."""

from __future__ import annotations

import logging
from collections.abc import AsyncGenerator

from pyadk.agents import Agent, BaseAgent, InvocationContext, SequentialAgent
from pyadk.events import Event
from pyadk.models import BaseLlm

from . import prompts, tools

logger = logging.getLogger("poc6_policies")


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
    """The PoC's agent tree; ``scenario`` and ``models`` as in poc6_sequential_failure."""
    if scenario not in ("failure", "success"):
        raise ValueError(f"Unknown scenario {scenario!r}: use 'failure' or 'success'.")
    models = models or {}
    tool = tools.failing_tool if scenario == "failure" else tools.succeeding_tool

    def step(name: str, instruction: str, **extra: object) -> Agent:
        return Agent(name=name, model=models.get(name, model), instruction=instruction, **extra)

    sequence = SequentialAgent(
        name="ErrorTestSequence",
        description="Runs A, B and C; stops at the first failure; D always runs.",
        sub_agents=[
            step("AgentA", prompts.AGENT_A_INSTR, tools=[tool]),
            step("AgentB", prompts.AGENT_B_INSTR),
            step("AgentC", prompts.AGENT_C_INSTR),
        ],
        on_failure="skip_rest",
        finally_agents=[step("AgentD", prompts.AGENT_D_INSTR)],
    )
    return RootAgent(name="RootAgent", description="Runs the PoC 6 sequence.", sub_agents=[sequence])


root_agent = create_root_agent()
