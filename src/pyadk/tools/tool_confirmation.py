"""Tool confirmation (human approval of tool calls): google-adk's module path.

Mark a tool with ``require_confirmation`` (``FunctionTool(f, require_confirmation=True)``,
or a predicate over the arguments), or call ``tool_context.request_confirmation()``
from the tool. The agent's turn then ends with an ``adk_request_confirmation`` call;
answer it with :func:`confirmation_answer` as the next message.
"""

from pyadk.events.tool_confirmation import (
    REQUEST_CONFIRMATION_FUNCTION_CALL_NAME,
    ToolConfirmation,
    confirmation_answer,
    confirmation_answers,
    confirmation_requests,
)

__all__ = [
    "REQUEST_CONFIRMATION_FUNCTION_CALL_NAME",
    "ToolConfirmation",
    "confirmation_answer",
    "confirmation_answers",
    "confirmation_requests",
]
