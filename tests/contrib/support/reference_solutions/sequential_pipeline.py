from pyadk.agents import LlmAgent, SequentialAgent

writer = LlmAgent(name="writer", instruction="Write a short poem.", output_key="draft")
editor = LlmAgent(name="editor", instruction="Improve this poem: {draft}")
root_agent = SequentialAgent(name="pipeline", sub_agents=[writer, editor])
