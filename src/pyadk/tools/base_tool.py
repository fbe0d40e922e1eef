"""BaseTool: something an agent's model can call."""

from __future__ import annotations

import abc
import inspect
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pyadk import types

if TYPE_CHECKING:
    from pyadk.models.llm_request import LlmRequest
    from pyadk.tools.tool_context import ToolContext


RequireConfirmation = bool | Callable[..., Any]
"""True, or a predicate over the call's arguments (sync or async) saying whether this
call needs approval; it may also take ``tool_context``."""


class BaseTool(abc.ABC):
    """A tool: a name, a description, a declaration for the model and a ``run_async``."""

    require_confirmation: RequireConfirmation = False
    idempotent: bool = False
    streams_progress: bool = False
    """The tool reports progress while it runs (``tool_context.report_progress``): its
    calls run so that the reports reach the client at once. False: reports are dropped
    and the calls run as fast as they can."""

    def __init__(
        self,
        *,
        name: str,
        description: str = "",
        is_long_running: bool = False,
        require_confirmation: RequireConfirmation = False,
        idempotent: bool = False,
        streams_progress: bool = False,
    ):
        self.name = name
        self.description = description
        self.is_long_running = is_long_running
        """Long-running tools pause the agent; the client sends the result later."""
        self.require_confirmation = require_confirmation
        """Calls that need a person's approval first (see :meth:`check_require_confirmation`)."""
        self.idempotent = idempotent
        """Running a call twice does no harm (a read, a lookup): a call cut off by a crash
        runs again when its invocation resumes. Other calls wait for approval then."""
        if streams_progress:
            self.streams_progress = True

    async def check_require_confirmation(
        self, args: dict[str, Any], tool_context: ToolContext
    ) -> bool:
        """Whether this call needs approval before it runs. The framework checks it for
        every tool before any callback or ``run_async``."""
        require = self.require_confirmation
        if not callable(require):
            return bool(require)
        parameters = inspect.signature(require).parameters
        takes_all = any(p.kind is p.VAR_KEYWORD for p in parameters.values())
        kwargs = {k: v for k, v in args.items() if takes_all or k in parameters}
        if "tool_context" in parameters:
            kwargs["tool_context"] = tool_context
        answer = require(**kwargs)
        if inspect.isawaitable(answer):
            answer = await answer
        return bool(answer)

    def _get_declaration(self) -> types.FunctionDeclaration | None:
        """The function declaration shown to the model (None: not a function tool)."""
        return None

    @abc.abstractmethod
    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        """Runs the tool with the model's arguments."""

    async def process_llm_request(
        self, *, tool_context: ToolContext, llm_request: LlmRequest
    ) -> None:
        """Lets the tool shape the request; by default declares the tool to the model."""
        llm_request.append_tools([self])

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r})"
