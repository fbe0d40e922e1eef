"""Instructions. None of them asks for JSON: outcomes are recorded by the framework."""

AGENT_A_INSTR = "You are Agent A. Call your tool once, then say in one sentence what happened."
AGENT_B_INSTR = "You are Agent B. Say 'Agent B running primary task'."
AGENT_C_INSTR = "You are Agent C. Say 'Agent C running primary task'."
AGENT_D_INSTR = """You are Agent D, the final step of a pipeline.
Outcomes of the previous steps: Agent A -> {outcome:AgentA}; Agent B -> {outcome:AgentB}; Agent C -> {outcome:AgentC}.
Output only one summary sentence as plain text, e.g. "Agent A failed, B and C were skipped, D completed."."""
