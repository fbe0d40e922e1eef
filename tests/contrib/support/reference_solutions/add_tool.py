from pyadk.agents import LlmAgent


def add(a: float, b: float) -> dict:
    """Adds two numbers."""
    return {"sum": a + b}


root_agent = LlmAgent(name="adder", instruction="Add numbers with the add tool.", tools=[add])
