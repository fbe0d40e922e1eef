"""Agent C: skipped by the shared callback when the previous step did not succeed."""

from pyadk.agents import Agent
from pyadk.models import BaseLlm

from ...callbacks import callbacks
from ...prompt import AGENT_C_OUTCOME
from . import prompt


def create_agent_c(model: BaseLlm | str = "") -> Agent:
    """Agent C, guarded by check_outcome_and_skip_callback."""
    return Agent(
        name="AgentC",
        description="Runs its task only if the previous step succeeded.",
        model=model,
        instruction=prompt.AGENT_C_INSTR,
        before_agent_callback=callbacks.check_outcome_and_skip_callback,
        output_key=AGENT_C_OUTCOME,
    )
