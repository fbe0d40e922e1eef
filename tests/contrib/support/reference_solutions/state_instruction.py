from pyadk.agents import LlmAgent

root_agent = LlmAgent(name="greeter", instruction="Greet the user by name: {user_name}.")
