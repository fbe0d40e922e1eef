"""Agent B's instruction."""

from ...prompt import STANDARD_OUTPUT_RULES

AGENT_B_INSTR = f"""You are Agent B, a step of a pipeline. Output 'Agent B running primary task'
as the message of a successful outcome.
{STANDARD_OUTPUT_RULES}"""
