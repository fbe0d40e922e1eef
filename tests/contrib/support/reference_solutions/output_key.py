from pyadk.agents import LlmAgent

root_agent = LlmAgent(
    name="summarizer", instruction="Summarize the text in one sentence.", output_key="summary"
)
