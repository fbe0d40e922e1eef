"""ReflectAndRetryToolPlugin: a failed tool call is answered with guidance to retry."""

from __future__ import annotations

import asyncio
import json
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from pyadk.plugins._reflect_retry_utils import GLOBAL_SCOPE_KEY as GLOBAL_SCOPE_KEY
from pyadk.plugins._reflect_retry_utils import (
    REFLECT_AND_RETRY_RESPONSE_TYPE,
    ScopedFailureTracker,
    TrackingScope,
    resolve_scope_key,
)
from pyadk.plugins.base_plugin import BasePlugin

if TYPE_CHECKING:
    from pyadk.agents.invocation_context import InvocationContext
    from pyadk.plugins._callback_helpers import ToolResultClassifier
    from pyadk.tools.base_tool import BaseTool
    from pyadk.tools.tool_context import ToolContext

__all__ = ["ReflectAndRetryToolPlugin", "ToolFailureResponse", "TrackingScope"]

PerToolFailuresCounter = dict[str, int]
"""Consecutive failures of each tool, by tool name."""


class ToolFailureResponse(BaseModel):
    """The answer the model receives in place of a failed call's result."""

    response_type: str = REFLECT_AND_RETRY_RESPONSE_TYPE
    error_type: str = ""
    error_details: str = ""
    retry_count: int = 0
    reflection_guidance: str = ""


_REFLECTION = """\
The call to tool `{tool}` failed.

Error:
{error}

Arguments used:
{args}

This is retry {count} of {limit}. Look at the error and at the arguments you gave; do not
make the same call again unchanged. Before the next attempt, check:
1. Arguments: is one missing, of the wrong type or badly formatted? Compare them with
   the tool's parameters.
2. Preconditions: did an earlier step fail, or not produce what this tool needs?
3. Approach: is this the right tool? Could another tool, or other steps, reach the goal?
4. Size: can the task be split into smaller steps?
5. Name: if the tool was not found, call only the tools you have.
Then try a corrected or different approach."""

_GIVE_UP = """\
The tool `{tool}` failed {limit} times in a row; the retry limit is reached.

Last error:
{error}

Last arguments:
{args}

Do not call `{tool}` again for this task. Take another approach with the other tools,
or tell the user that the task cannot be completed and why."""


class ReflectAndRetryToolPlugin(BasePlugin):
    """Answers a failed tool call with reflection guidance so the model retries.

    A call fails when the tool raises, or when :meth:`extract_error_from_result` finds
    an error in its result (by default: what ``tool_result_classifier`` classifies as
    an error; without one, nothing). Each failure counts against the tool within the
    scope (``TrackingScope.INVOCATION``: the user turn; ``GLOBAL``: the plugin's life);
    a success resets that tool's count. Up to ``max_retries`` failures in a row are
    answered with a :class:`ToolFailureResponse`; after that the error is raised
    (``throw_exception_if_retry_exceeded``, the default) or answered with a final
    "do not use this tool again" response. Override ``_get_scope_key`` to count per
    user or per session. Parallel calls are counted safely (an asyncio lock).
    """

    def __init__(
        self,
        name: str = "reflect_retry_tool_plugin",
        max_retries: int = 3,
        throw_exception_if_retry_exceeded: bool = True,
        tracking_scope: TrackingScope = TrackingScope.INVOCATION,
        *,
        tool_result_classifier: ToolResultClassifier | None = None,
    ) -> None:
        super().__init__(name)
        if not isinstance(max_retries, int) or isinstance(max_retries, bool) or max_retries < 0:
            raise ValueError(f"max_retries must be a non-negative integer, got {max_retries!r}.")
        if not isinstance(tracking_scope, TrackingScope):
            raise ValueError(
                f"tracking_scope must be a TrackingScope member, got {tracking_scope!r}."
            )
        if tool_result_classifier is not None:
            from pyadk.plugins._callback_helpers import _validate_tool_result_classifier

            _validate_tool_result_classifier(tool_result_classifier)
        self.max_retries = max_retries
        self.throw_exception_if_retry_exceeded = throw_exception_if_retry_exceeded
        self.scope = tracking_scope
        self.tool_result_classifier = tool_result_classifier
        self._tracker = ScopedFailureTracker()
        self._scoped_failure_counters = self._tracker._scoped_failure_counters
        self._lock = self._tracker._lock

    async def after_tool_callback(
        self,
        *,
        tool: BaseTool,
        tool_args: dict[str, Any],
        tool_context: ToolContext,
        result: Any,
    ) -> dict[str, Any] | None:
        """Counts an error found in the result; a clean result resets the count."""
        if isinstance(result, dict) and result.get("response_type") == (
            REFLECT_AND_RETRY_RESPONSE_TYPE
        ):
            return None  # this plugin's own answer to a raised error
        error = await self.extract_error_from_result(
            tool=tool, tool_args=tool_args, tool_context=tool_context, result=result
        )
        if error:
            return await self._handle_tool_error(tool, tool_args, tool_context, error)
        await self._reset_failures_for_tool(tool_context, tool.name)
        return None

    async def extract_error_from_result(
        self,
        *,
        tool: BaseTool,
        tool_args: dict[str, Any],
        tool_context: ToolContext,
        result: Any,
    ) -> Any:
        """The error a result reports without raising, or None for a success.

        By default, the error message ``tool_result_classifier`` gives (with the built-in
        rule of :mod:`pyadk.plugins._callback_helpers`: an MCP result with ``isError``);
        without a classifier, None. Override it to detect errors your tools return; any
        truthy value counts as the error (an Exception, a message, the result itself).
        """
        if self.tool_result_classifier is None:
            return None
        from pyadk.plugins._callback_helpers import _classify_tool_result_error

        message = _classify_tool_result_error(
            tool=tool,
            tool_args=tool_args,
            tool_context=tool_context,
            result=result,
            tool_result_classifier=self.tool_result_classifier,
        )
        return message

    async def on_tool_error_callback(
        self,
        *,
        tool: BaseTool,
        tool_args: dict[str, Any],
        tool_context: ToolContext,
        error: Exception,
    ) -> dict[str, Any] | None:
        """Answers an exception of the tool with guidance (or raises it past the limit)."""
        if isinstance(error, asyncio.CancelledError):
            return None
        return await self._handle_tool_error(tool, tool_args, tool_context, error)

    async def after_run_callback(self, *, invocation_context: InvocationContext) -> None:
        """Drops the counts of an invocation that ended (INVOCATION scope)."""
        if self.scope is TrackingScope.INVOCATION and invocation_context.invocation_id:
            await self._tracker.forget_scope(invocation_context.invocation_id)

    async def _handle_tool_error(
        self, tool: BaseTool, tool_args: dict[str, Any], tool_context: ToolContext, error: Any
    ) -> dict[str, Any] | None:
        """Counts the failure; guidance while retries remain, then raise or give up."""
        if self.max_retries > 0:
            scope_key = self._get_scope_key(tool_context)
            count = await self._tracker.increment(scope_key, tool.name)
            if count <= self.max_retries:
                return self._create_tool_reflection_response(tool, tool_args, error, count)
        if self.throw_exception_if_retry_exceeded:
            raise self._ensure_exception(error)
        return self._get_tool_retry_exceed_msg(tool, tool_args, error)

    def _get_scope_key(self, tool_context: ToolContext) -> str:
        """The key failures are counted under; override for per-user or per-session."""
        return resolve_scope_key(self.scope, tool_context.invocation_id)

    async def _reset_failures_for_tool(self, tool_context: ToolContext, tool_name: str) -> None:
        await self._tracker.reset(self._get_scope_key(tool_context), tool_name)

    def _ensure_exception(self, error: Any) -> Exception:
        if isinstance(error, Exception):
            return error
        return ToolResultError(_details(error))

    def _format_error_details(self, error: Any) -> str:
        if isinstance(error, Exception):
            return f"{type(error).__name__}: {error}"
        return _details(error)

    def _create_tool_reflection_response(
        self, tool: BaseTool, tool_args: dict[str, Any], error: Any, retry_count: int
    ) -> dict[str, Any]:
        """The answer to failure number ``retry_count`` (within the limit)."""
        guidance = _REFLECTION.format(
            tool=tool.name,
            error=self._format_error_details(error),
            args=_args_text(tool_args),
            count=retry_count,
            limit=self.max_retries,
        )
        return ToolFailureResponse(
            error_type=_error_type(error),
            error_details=_details(error),
            retry_count=retry_count,
            reflection_guidance=guidance,
        ).model_dump(mode="json")

    def _get_tool_retry_exceed_msg(
        self, tool: BaseTool, tool_args: dict[str, Any], error: Any
    ) -> dict[str, Any]:
        """The final answer once the limit is reached (when not raising).

        It also carries ``status: "error"`` and ``message``, so pyadk records the
        agent's outcome as a failure (see docs/failure-handling.md).
        """
        guidance = _GIVE_UP.format(
            tool=tool.name,
            error=self._format_error_details(error),
            args=_args_text(tool_args),
            limit=self.max_retries,
        )
        answer = ToolFailureResponse(
            error_type=_error_type(error),
            error_details=_details(error),
            retry_count=self.max_retries,
            reflection_guidance=guidance,
        ).model_dump(mode="json")
        answer["status"] = "error"
        answer["message"] = f"gave up after {self.max_retries} retries: " + (
            self._format_error_details(error)
        )
        return answer


class ToolResultError(Exception):
    """An error a tool reported in its result, raised once the retry limit is reached."""


def _error_type(error: Any) -> str:
    return type(error).__name__ if isinstance(error, Exception) else "ToolError"


def _details(error: Any) -> str:
    if isinstance(error, Exception | str):
        return str(error)
    try:
        return json.dumps(error, default=str)
    except (TypeError, ValueError):
        return str(error)


def _args_text(tool_args: dict[str, Any]) -> str:
    return json.dumps(tool_args, indent=2, default=str)
