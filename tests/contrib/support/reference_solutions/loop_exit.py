from pyadk.agents import LlmAgent, LoopAgent
from pyadk.tools import exit_loop

worker = LlmAgent(name="worker", instruction="Do the next piece of work.")
checker = LlmAgent(name="checker", instruction="Call exit_loop when done.", tools=[exit_loop])
root_agent = LoopAgent(name="loop", sub_agents=[worker, checker], max_iterations=5)
