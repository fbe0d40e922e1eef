"""LongRunningFunctionTool: a function whose result arrives later from the client."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pyadk import types
from pyadk.tools.function_tool import FunctionTool

_NOTE = (
    "\n\nNOTE: this is a long-running operation. Do not call this tool again if it has "
    "already returned an intermediate or pending status."
)


class LongRunningFunctionTool(FunctionTool):
    """A FunctionTool that starts work and returns before it ends.

    Its call pauses the agent (the call event is final). The client later sends a
    ``FunctionResponse`` with the same call id as a new message, and the agent resumes.
    """

    def __init__(self, func: Callable[..., Any]) -> None:
        super().__init__(func)
        self.is_long_running = True

    def _get_declaration(self) -> types.FunctionDeclaration | None:
        if self._declaration is None:
            declaration = super()._get_declaration()
            if declaration is not None:
                declaration.description = f"{declaration.description or ''}{_NOTE}".strip()
        return self._declaration
