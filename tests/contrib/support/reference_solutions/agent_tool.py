from pyadk.agents import LlmAgent
from pyadk.tools import AgentTool

calculator = LlmAgent(name="calculator", instruction="Compute the arithmetic expression.")
root_agent = LlmAgent(
    name="assistant", instruction="Use the calculator.", tools=[AgentTool(calculator)]
)
