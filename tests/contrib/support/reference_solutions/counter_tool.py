from pyadk.agents import LlmAgent
from pyadk.tools import ToolContext


def count(tool_context: ToolContext) -> dict:
    """Counts one more call."""
    tool_context.state["counter"] = tool_context.state.get("counter", 0) + 1
    return {"counter": tool_context.state["counter"]}


root_agent = LlmAgent(name="counter", instruction="Count when asked.", tools=[count])
