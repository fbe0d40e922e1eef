"""LoggingPlugin: prints what happens at every callback point, for terminal debugging."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from pyadk import types
from pyadk.plugins._callback_helpers import (
    ToolResultClassifier,
    _classify_tool_result_error,
    _has_node_output,
    _is_durable_node_error,
    _mark_tool_error_recorded,
    _node_path,
    _pop_tool_error_recorded,
    _validate_tool_result_classifier,
)
from pyadk.plugins.base_plugin import BasePlugin

if TYPE_CHECKING:
    from pyadk.agents.base_agent import BaseAgent
    from pyadk.agents.callback_context import CallbackContext
    from pyadk.agents.invocation_context import InvocationContext
    from pyadk.events.event import Event
    from pyadk.models.llm_request import LlmRequest
    from pyadk.models.llm_response import LlmResponse
    from pyadk.tools.base_tool import BaseTool
    from pyadk.tools.tool_context import ToolContext

logger = logging.getLogger(__name__)

_GREY = "\033[90m"
_RESET = "\033[0m"


class LoggingPlugin(BasePlugin):
    """Prints every callback point of a run to the console (stdout), in grey.

    Each line starts with ``[<name>]``: the user message, the run's start and end, each
    agent, model request and response (with the finish reason and token usage), tool
    call and result, every event yielded (with the workflow node it comes from), and
    model and tool errors. It only observes: every hook returns None.

    A tool call is printed as a tool error when the tool raises, and also when its
    result reports a failure without raising: a ``ReflectAndRetryToolPlugin`` answer, an
    MCP result with ``isError`` set, or what ``tool_result_classifier`` calls an error.
    A raised error is printed once, even when a later plugin's answer to it then reaches
    ``after_tool_callback``.
    """

    def __init__(
        self,
        name: str = "logging_plugin",
        *,
        tool_result_classifier: ToolResultClassifier | None = None,
    ) -> None:
        """``tool_result_classifier`` classifies the results of your own tools (see
        :class:`~pyadk.plugins.ToolResultClassifier`); ValueError when it is not a
        synchronous callable taking ``tool``, ``tool_args``, ``tool_context``, ``result``."""
        super().__init__(name)
        _validate_tool_result_classifier(tool_result_classifier)
        self._tool_result_classifier = tool_result_classifier

    async def on_user_message_callback(
        self, *, invocation_context: InvocationContext, user_message: types.Content
    ) -> types.Content | None:
        self._log("USER MESSAGE")
        self._log(f"   Invocation ID: {invocation_context.invocation_id}")
        self._log(f"   Session ID: {invocation_context.session.id}")
        self._log(f"   User ID: {invocation_context.user_id}")
        self._log(f"   App Name: {invocation_context.app_name}")
        self._log(f"   Root Agent: {_agent_name(invocation_context)}")
        self._log(f"   User Content: {_format_content(user_message)}")
        if invocation_context.branch:
            self._log(f"   Branch: {invocation_context.branch}")
        return None

    async def before_run_callback(
        self, *, invocation_context: InvocationContext
    ) -> types.Content | None:
        self._log("RUN STARTING")
        self._log(f"   Invocation ID: {invocation_context.invocation_id}")
        self._log(f"   Starting Agent: {_agent_name(invocation_context)}")
        return None

    async def on_event_callback(
        self, *, invocation_context: InvocationContext, event: Event
    ) -> Event | None:
        self._log("EVENT")
        self._log(f"   Event ID: {event.id}")
        self._log(f"   Author: {event.author}")
        self._log(f"   Content: {_format_content(event.content)}")
        self._log(f"   Final Response: {event.is_final_response()}")
        calls = event.get_function_calls()
        if calls:
            self._log(f"   Function Calls: {[call.name for call in calls]}")
        responses = event.get_function_responses()
        if responses:
            self._log(f"   Function Responses: {[response.name for response in responses]}")
        if event.long_running_tool_ids:
            self._log(f"   Long Running Tools: {sorted(event.long_running_tool_ids)}")
        path = _node_path(event)
        if path:
            self._log(f"   Node Path: {path}")
            if event.partial is not True:
                if _has_node_output(event):
                    output = (event.custom_metadata or {}).get("output")
                    self._log(f"   Node Output: {_format_value(output)}")
                if _is_durable_node_error(event):
                    message = event.error_message or ""
                    self._log(f"   Node Error: [{event.error_code}] {message}".rstrip())
        return None

    async def after_run_callback(self, *, invocation_context: InvocationContext) -> None:
        self._log("RUN COMPLETED")
        self._log(f"   Invocation ID: {invocation_context.invocation_id}")
        self._log(f"   Final Agent: {_agent_name(invocation_context)}")
        return None

    async def before_agent_callback(
        self, *, agent: BaseAgent, callback_context: CallbackContext
    ) -> types.Content | None:
        self._log("AGENT STARTING")
        self._log(f"   Agent Name: {callback_context.agent_name}")
        self._log(f"   Invocation ID: {callback_context.invocation_id}")
        branch = callback_context._invocation_context.branch
        if branch:
            self._log(f"   Branch: {branch}")
        return None

    async def after_agent_callback(
        self, *, agent: BaseAgent, callback_context: CallbackContext
    ) -> types.Content | None:
        self._log("AGENT COMPLETED")
        self._log(f"   Agent Name: {callback_context.agent_name}")
        self._log(f"   Invocation ID: {callback_context.invocation_id}")
        return None

    async def before_model_callback(
        self, *, callback_context: CallbackContext, llm_request: LlmRequest
    ) -> LlmResponse | None:
        self._log("MODEL REQUEST")
        self._log(f"   Model: {llm_request.model or 'default'}")
        self._log(f"   Agent: {callback_context.agent_name}")
        instruction = _instruction_text(llm_request.config.system_instruction)
        if instruction:
            self._log(f"   System Instruction: '{_truncate(instruction, 200)}'")
        if llm_request.tools_dict:
            self._log(f"   Available Tools: {list(llm_request.tools_dict)}")
        return None

    async def after_model_callback(
        self, *, callback_context: CallbackContext, llm_response: LlmResponse
    ) -> LlmResponse | None:
        """The error and finish reason are printed for the final response of a call
        only: a streamed chunk may carry them too."""
        self._log("MODEL RESPONSE")
        self._log(f"   Agent: {callback_context.agent_name}")
        final = llm_response.partial is not True
        if final and llm_response.error_code:
            self._log(f"   ERROR - Code: {llm_response.error_code}")
            self._log(f"   Error Message: {llm_response.error_message}")
        else:
            self._log(f"   Content: {_format_content(llm_response.content)}")
            if llm_response.partial:
                self._log(f"   Partial: {llm_response.partial}")
            if llm_response.turn_complete is not None:
                self._log(f"   Turn Complete: {llm_response.turn_complete}")
        if final and llm_response.finish_reason:
            reason = llm_response.finish_reason
            self._log(f"   Finish Reason: {getattr(reason, 'value', reason)}")
        usage = llm_response.usage_metadata
        if usage:
            self._log(
                f"   Token Usage - Input: {usage.prompt_token_count}, "
                f"Output: {usage.candidates_token_count}"
            )
        return None

    async def on_model_error_callback(
        self, *, callback_context: CallbackContext, llm_request: LlmRequest, error: Exception
    ) -> LlmResponse | None:
        self._log("MODEL ERROR")
        self._log(f"   Agent: {callback_context.agent_name}")
        self._log(f"   Error: {error}")
        return None

    async def before_tool_callback(
        self, *, tool: BaseTool, tool_args: dict[str, Any], tool_context: ToolContext
    ) -> dict[str, Any] | None:
        self._log("TOOL STARTING")
        self._tool_lines(tool, tool_context)
        self._log(f"   Arguments: {_format_args(tool_args)}")
        return None

    async def after_tool_callback(
        self,
        *,
        tool: BaseTool,
        tool_args: dict[str, Any],
        tool_context: ToolContext,
        result: dict[str, Any],
    ) -> dict[str, Any] | None:
        if _pop_tool_error_recorded(self, tool_context):
            return None  # a later plugin's answer to an error already printed
        error = _classify_tool_result_error(
            tool=tool,
            tool_args=tool_args,
            tool_context=tool_context,
            result=result,
            tool_result_classifier=self._tool_result_classifier,
            log=logger,
        )
        if error is not None:
            self._log("TOOL ERROR")
            self._tool_lines(tool, tool_context)
            self._log(f"   Arguments: {_format_args(tool_args)}")
            self._log(f"   Result: {_format_args(result)}")
            self._log(f"   Error: {error}")
            return None
        self._log("TOOL COMPLETED")
        self._tool_lines(tool, tool_context)
        self._log(f"   Result: {_format_args(result)}")
        return None

    async def on_tool_error_callback(
        self,
        *,
        tool: BaseTool,
        tool_args: dict[str, Any],
        tool_context: ToolContext,
        error: Exception,
    ) -> dict[str, Any] | None:
        lines = [
            "TOOL ERROR",
            f"   Tool Name: {tool.name}",
            f"   Agent: {tool_context.agent_name}",
            f"   Function Call ID: {tool_context.function_call_id}",
            f"   Arguments: {_format_args(tool_args)}",
            f"   Error: {error}",
        ]
        _mark_tool_error_recorded(self, tool_context)  # once every line is rendered
        for line in lines:
            self._log(line)
        return None

    def _tool_lines(self, tool: BaseTool, tool_context: ToolContext) -> None:
        self._log(f"   Tool Name: {tool.name}")
        self._log(f"   Agent: {tool_context.agent_name}")
        self._log(f"   Function Call ID: {tool_context.function_call_id}")

    def _log(self, message: str) -> None:
        """Prints one line, grey, prefixed with the plugin's name."""
        print(f"{_GREY}[{self.name}] {message}{_RESET}")


def _agent_name(invocation_context: InvocationContext) -> str:
    agent = invocation_context.agent
    return getattr(agent, "name", None) or "Unknown"


def _truncate(text: str, limit: int, tail: str = "...") -> str:
    return text if len(text) <= limit else text[:limit] + tail


def _instruction_text(instruction: Any) -> str:
    """A system instruction (str, Content, Part or a list of them) as loggable text."""
    if instruction is None:
        return ""
    if isinstance(instruction, str):
        return instruction
    if isinstance(instruction, types.Content):
        return _format_content(instruction) if instruction.parts else ""
    if isinstance(instruction, types.Part):
        return _format_content(types.Content(parts=[instruction]))
    if isinstance(instruction, list):
        return " | ".join(_instruction_text(item) for item in instruction)
    return str(instruction)


def _format_content(content: types.Content | None, max_length: int = 200) -> str:
    """The parts of ``content``, one short description each ('None' when empty)."""
    if content is None or not content.parts:
        return "None"
    described: list[str] = []
    for part in content.parts:
        if part.text:
            described.append(f"text: '{_truncate(part.text.strip(), max_length)}'")
        elif part.function_call is not None:
            described.append(f"function_call: {part.function_call.name}")
        elif part.function_response is not None:
            described.append(f"function_response: {part.function_response.name}")
        elif part.code_execution_result is not None:
            described.append("code_execution_result")
        else:
            described.append("other_part")
    return " | ".join(described)


def _format_args(args: Any, max_length: int = 300) -> str:
    if not args:
        return "{}"
    return _truncate(str(args), max_length, "...}")


def _format_value(value: Any, max_length: int = 300) -> str:
    return _truncate(repr(value) if isinstance(value, str) else str(value), max_length)
