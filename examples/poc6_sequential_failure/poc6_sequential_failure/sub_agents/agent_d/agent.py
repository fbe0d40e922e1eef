"""Agent D: always runs and summarises the outcomes injected into its instruction."""

from pyadk.agents import Agent
from pyadk.models import BaseLlm

from ...callbacks import callbacks
from . import prompt


def create_agent_d(model: BaseLlm | str = "") -> Agent:
    """Agent D, the finalizer: never skipped, no output_key."""
    return Agent(
        name="AgentD",
        description="Summarises the outcomes of A, B and C.",
        model=model,
        instruction=prompt.AGENT_D_INSTR,
        before_agent_callback=callbacks.ensure_outcomes_recorded_callback,
    )
