from pyadk.agents import LlmAgent

billing = LlmAgent(name="billing", description="Handles payment questions.", instruction="Help.")
support = LlmAgent(name="support", description="Handles technical problems.", instruction="Help.")
root_agent = LlmAgent(
    name="coordinator", instruction="Route the question.", sub_agents=[billing, support]
)
