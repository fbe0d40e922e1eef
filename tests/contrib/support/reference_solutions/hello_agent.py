from pyadk.agents import LlmAgent

root_agent = LlmAgent(name="greeter", instruction="Greet the user politely.")
