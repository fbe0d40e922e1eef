from pyadk.agents import LlmAgent


def add(a: float, b: float) -> float:
    """Adds two numbers."""
    return a + b


def multiply(a: float, b: float) -> float:
    """Multiplies two numbers."""
    return a * b


root_agent = LlmAgent(name="calculator", instruction="Compute.", tools=[add, multiply])
