from pyadk.agents import LlmAgent, ParallelAgent

root_agent = ParallelAgent(
    name="research",
    sub_agents=[
        LlmAgent(name="cat_expert", instruction="Facts about cats.", output_key="cats"),
        LlmAgent(name="dog_expert", instruction="Facts about dogs.", output_key="dogs"),
    ],
)
