"""Shared constants: the state keys the agents write and read."""

AGENT_A_OUTCOME = "agent_a_outcome"
AGENT_B_OUTCOME = "agent_b_outcome"
AGENT_C_OUTCOME = "agent_c_outcome"

STANDARD_OUTPUT_RULES = """Respond with ONLY a JSON object, no other text and no code fences:
{"status": "success" | "failure", "message": "<short description>", "result": "<optional>"}"""
