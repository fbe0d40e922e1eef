from pyadk.agents import LlmAgent, LoopAgent, SequentialAgent
from pyadk.tools import exit_loop

drafter = LlmAgent(name="drafter", instruction="Write a draft.", output_key="draft")
critic = LlmAgent(name="critic", instruction="Critique: {draft}", output_key="critique")
reviser = LlmAgent(
    name="reviser",
    instruction="Rewrite {draft} using {critique}; call exit_loop if it says APPROVED.",
    output_key="draft",
    tools=[exit_loop],
)
root_agent = SequentialAgent(
    name="refine",
    sub_agents=[drafter, LoopAgent(name="loop", sub_agents=[critic, reviser], max_iterations=3)],
)
