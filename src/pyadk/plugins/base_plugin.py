"""BasePlugin: hooks that apply to every agent, model and tool call of a Runner."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pyadk import types
    from pyadk.agents.base_agent import BaseAgent
    from pyadk.agents.callback_context import CallbackContext
    from pyadk.agents.invocation_context import InvocationContext
    from pyadk.events.event import Event
    from pyadk.models.llm_request import LlmRequest
    from pyadk.models.llm_response import LlmResponse
    from pyadk.tools.base_tool import BaseTool
    from pyadk.tools.tool_context import ToolContext


class BasePlugin:
    """Override the hooks you need. Plugins run before the agents' own callbacks, in
    registration order; the first hook returning something other than None wins and
    the remaining plugins and agent callbacks are skipped."""

    def __init__(self, name: str) -> None:
        self.name = name

    async def on_user_message_callback(
        self, *, invocation_context: InvocationContext, user_message: types.Content
    ) -> types.Content | None:
        """May replace the user message before it is stored."""
        return None

    async def before_run_callback(
        self, *, invocation_context: InvocationContext
    ) -> types.Content | None:
        """Returning content ends the run with that content as the answer."""
        return None

    async def on_event_callback(
        self, *, invocation_context: InvocationContext, event: Event
    ) -> Event | None:
        """May replace an event before it is persisted and yielded."""
        return None

    async def after_run_callback(self, *, invocation_context: InvocationContext) -> None:
        """Runs when the invocation ends."""
        return None

    async def before_agent_callback(
        self, *, agent: BaseAgent, callback_context: CallbackContext
    ) -> types.Content | None:
        """Returning content skips the agent."""
        return None

    async def after_agent_callback(
        self, *, agent: BaseAgent, callback_context: CallbackContext
    ) -> types.Content | None:
        """Returning content adds it as the agent's last reply."""
        return None

    async def before_model_callback(
        self, *, callback_context: CallbackContext, llm_request: LlmRequest
    ) -> LlmResponse | None:
        """Returning a response skips the model call."""
        return None

    async def after_model_callback(
        self, *, callback_context: CallbackContext, llm_response: LlmResponse
    ) -> LlmResponse | None:
        """Returning a response replaces the model's."""
        return None

    async def on_model_error_callback(
        self, *, callback_context: CallbackContext, llm_request: LlmRequest, error: Exception
    ) -> LlmResponse | None:
        """Returning a response recovers from a model error."""
        return None

    async def before_tool_callback(
        self, *, tool: BaseTool, tool_args: dict[str, Any], tool_context: ToolContext
    ) -> dict[str, Any] | None:
        """Returning a dict skips the tool and becomes its result."""
        return None

    async def after_tool_callback(
        self,
        *,
        tool: BaseTool,
        tool_args: dict[str, Any],
        tool_context: ToolContext,
        result: dict[str, Any],
    ) -> dict[str, Any] | None:
        """Returning a dict replaces the tool's result."""
        return None

    async def on_tool_error_callback(
        self,
        *,
        tool: BaseTool,
        tool_args: dict[str, Any],
        tool_context: ToolContext,
        error: Exception,
    ) -> dict[str, Any] | None:
        """Returning a dict recovers from a tool error and becomes its result."""
        return None

    async def on_agent_error_callback(
        self, *, agent: BaseAgent, callback_context: CallbackContext, error: Exception
    ) -> None:
        """Told that ``error`` escaped ``agent``'s run (notification only: the error is
        raised on, and an exception of this hook is logged, not raised)."""
        return None

    async def on_run_error_callback(
        self, *, invocation_context: InvocationContext, error: Exception
    ) -> None:
        """Told that ``error`` escaped the Runner's run (notification only: the error is
        raised on, and an exception of this hook is logged, not raised)."""
        return None

    async def close(self) -> None:
        """Releases the plugin's resources when the Runner closes."""
        return None
