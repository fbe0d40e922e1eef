from pyadk.agents import LlmAgent, SequentialAgent

root_agent = SequentialAgent(
    name="pipeline",
    sub_agents=[
        LlmAgent(name="fetcher", instruction="Fetch the data."),
        LlmAgent(name="analyzer", instruction="Analyze the data."),
    ],
    on_failure="skip_rest",
    finally_agents=[LlmAgent(name="reporter", instruction="Report what happened.")],
)
