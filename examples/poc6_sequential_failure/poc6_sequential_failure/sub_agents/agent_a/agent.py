"""Agent A: calls its tool and reports the outcome as a JSON string (output_key)."""

from pyadk.agents import Agent
from pyadk.models import BaseLlm
from pyadk.tools import BaseTool

from ...prompt import AGENT_A_OUTCOME
from . import prompt, tools


def create_agent_a(tool: BaseTool = tools.failing_tool, model: BaseLlm | str = "") -> Agent:
    """Agent A with ``tool`` (FailingTool by default)."""
    return Agent(
        name="AgentA",
        description="Performs the first task and reports its outcome as JSON.",
        model=model,
        instruction=prompt.AGENT_A_INSTR,
        tools=[tool],
        output_key=AGENT_A_OUTCOME,
    )
