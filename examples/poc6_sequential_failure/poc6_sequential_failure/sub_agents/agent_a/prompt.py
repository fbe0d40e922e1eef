"""Agent A's instruction."""

from ...prompt import STANDARD_OUTPUT_RULES

AGENT_A_INSTR = f"""You are Agent A, the first step of a pipeline.
1. Call your tool exactly once to perform the task.
2. If the tool result has "status": "error", the task failed: report status "failure" with the
   tool's message. Otherwise report status "success" with the tool's result.
{STANDARD_OUTPUT_RULES}"""
