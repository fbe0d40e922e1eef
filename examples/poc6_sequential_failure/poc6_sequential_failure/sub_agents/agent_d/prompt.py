"""Agent D's instruction: the outcomes of A, B and C are injected from state."""

AGENT_D_INSTR = """You are Agent D, the final step of a pipeline. Perform the following steps:
1. Review the outcomes of the previous steps: Agent A -> {agent_a_outcome}, Agent B -> {agent_b_outcome}, Agent C -> {agent_c_outcome}.
2. Each outcome is a JSON object with a "status" of "success", "failure" or "skipped".
3. Output only one summary sentence as plain text, e.g. "Agent A failed, B and C were skipped, D completed."."""
