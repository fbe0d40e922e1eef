"""Agent C's instruction."""

from ...prompt import STANDARD_OUTPUT_RULES

AGENT_C_INSTR = f"""You are Agent C, a step of a pipeline. Output 'Agent C running primary task'
as the message of a successful outcome.
{STANDARD_OUTPUT_RULES}"""
