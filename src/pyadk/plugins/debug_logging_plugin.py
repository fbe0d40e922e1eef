"""DebugLoggingPlugin: a complete record of each invocation, appended to a YAML file."""

from __future__ import annotations

import logging
import os
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

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
from pyadk.plugins._debug_redaction import safe_serialize
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

_FILE_MODE = 0o600  # the file holds whole prompts and responses


class _DebugEntry(BaseModel):
    """One recorded callback point."""

    timestamp: str
    entry_type: str
    invocation_id: str | None = None
    agent_name: str | None = None
    data: dict[str, Any] = Field(default_factory=dict)


class _InvocationDebugState(BaseModel):
    """What is recorded for one invocation (one YAML document)."""

    invocation_id: str
    session_id: str
    app_name: str
    user_id: str | None = None
    start_time: str
    entries: list[_DebugEntry] = Field(default_factory=list)


def _yaml() -> Any:
    try:
        import yaml
    except ImportError as error:  # pragma: no cover - pyyaml is in the dev extra
        raise ImportError(
            "DebugLoggingPlugin writes YAML and needs PyYAML: "
            "pip install 'pyadk[debug-logging]' (or pyyaml)."
        ) from error
    return yaml


class DebugLoggingPlugin(BasePlugin):
    """Records everything an invocation did and appends it to ``output_path`` as one
    YAML document (``---`` separated) when the invocation ends.

    Recorded, in order, as entries with a ``timestamp``, an ``entry_type``, the
    ``agent_name`` and ``data``: the user message (``user_message``), the run's start
    (``invocation_start``), each agent's start and end, model requests (model, system
    instruction, contents, tools, config) and responses (content, usage, errors, finish
    reason), model errors, tool calls, results and errors, every event yielded, and the
    session state at the end (``session_state_snapshot``), then ``invocation_end``.
    Inline data is never written (only its MIME type).

    Credentials are redacted: pyadk's credential models, keys naming a secret
    (``api_key``, ``password``, ``*_token``, ... with an ``app:`` / ``user:`` scope
    ignored), every ``temp:`` state key, and armoured private keys inside strings. The
    file is created readable by its owner only (mode 600); it still holds whole prompts
    and answers. A tool result reporting a failure without raising gets a
    ``tool_error`` entry, as in :class:`~pyadk.plugins.LoggingPlugin`.

    An invocation that raises is not written: the run ends before ``after_run_callback``.
    Needs PyYAML (the ``debug-logging`` extra).
    """

    def __init__(
        self,
        *,
        name: str = "debug_logging_plugin",
        output_path: str = "adk_debug.yaml",
        include_session_state: bool = True,
        include_system_instruction: bool = True,
        tool_result_classifier: ToolResultClassifier | None = None,
    ) -> None:
        """``include_session_state``: add the state snapshot; ``include_system_instruction``:
        write the whole system instruction (else only its length)."""
        super().__init__(name)
        _validate_tool_result_classifier(tool_result_classifier)
        _yaml()
        self._output_path = Path(output_path)
        self._include_session_state = include_session_state
        self._include_system_instruction = include_system_instruction
        self._tool_result_classifier = tool_result_classifier
        self._invocation_states: dict[str, _InvocationDebugState] = {}
        self._warned_about_mode = False

    def _start(self, ctx: InvocationContext) -> None:
        if ctx.invocation_id not in self._invocation_states:
            self._invocation_states[ctx.invocation_id] = _InvocationDebugState(
                invocation_id=ctx.invocation_id,
                session_id=ctx.session.id,
                app_name=ctx.session.app_name,
                user_id=ctx.user_id,
                start_time=_now(),
            )

    def _add_entry(
        self,
        invocation_id: str,
        entry_type: str,
        agent_name: str | None = None,
        **data: Any,
    ) -> None:
        state = self._invocation_states.get(invocation_id)
        if state is None:
            logger.warning("No debug state for invocation %s, skipping entry", invocation_id)
            return
        state.entries.append(
            _DebugEntry(
                timestamp=_now(),
                entry_type=entry_type,
                invocation_id=invocation_id,
                agent_name=agent_name,
                data=safe_serialize(data),
            )
        )

    async def on_user_message_callback(
        self, *, invocation_context: InvocationContext, user_message: types.Content
    ) -> types.Content | None:
        self._start(invocation_context)  # the user message comes before the run starts
        self._add_entry(
            invocation_context.invocation_id,
            "user_message",
            content=_serialize_content(user_message),
        )
        return None

    async def before_run_callback(
        self, *, invocation_context: InvocationContext
    ) -> types.Content | None:
        self._start(invocation_context)
        self._add_entry(
            invocation_context.invocation_id,
            "invocation_start",
            agent_name=getattr(invocation_context.agent, "name", None),
            branch=invocation_context.branch,
        )
        return None

    async def on_event_callback(
        self, *, invocation_context: InvocationContext, event: Event
    ) -> Event | None:
        data: dict[str, Any] = {
            "event_id": event.id,
            "author": event.author,
            "content": _serialize_content(event.content),
            "is_final_response": event.is_final_response(),
            "partial": event.partial,
            "turn_complete": event.turn_complete,
            "branch": event.branch,
        }
        actions = _actions_data(event)
        if actions:
            data["actions"] = actions
        if event.grounding_metadata:
            data["has_grounding_metadata"] = True
        usage = event.usage_metadata
        if usage:
            data["usage_metadata"] = {
                "prompt_token_count": usage.prompt_token_count,
                "candidates_token_count": usage.candidates_token_count,
                "total_token_count": usage.total_token_count,
            }
        if event.error_code:
            data["error_code"] = event.error_code
            data["error_message"] = event.error_message
        if event.long_running_tool_ids:
            data["long_running_tool_ids"] = sorted(event.long_running_tool_ids)
        path = _node_path(event)
        if path:
            data["node_path"] = path
            if event.partial is not True:
                if _has_node_output(event):
                    data["node_output"] = (event.custom_metadata or {}).get("output")
                if _is_durable_node_error(event):
                    data["node_error"] = {
                        "error_code": event.error_code,
                        "error_message": event.error_message,
                    }
        self._add_entry(invocation_context.invocation_id, "event", agent_name=event.author, **data)
        return None

    async def after_run_callback(self, *, invocation_context: InvocationContext) -> None:
        """Appends the invocation's record to the file (a failure to write is logged)."""
        self._finish(invocation_context)

    async def on_run_error_callback(
        self, *, invocation_context: InvocationContext, error: Exception
    ) -> None:
        """Appends the record of an invocation that failed, ending with the error (a
        pyadk addition: google-adk keeps such a record in memory, unwritten)."""
        self._add_entry(
            invocation_context.invocation_id,
            "invocation_error",
            error_type=type(error).__name__,
            error_message=str(error),
        )
        self._finish(invocation_context)

    def _finish(self, invocation_context: InvocationContext) -> None:
        invocation_id = invocation_context.invocation_id
        state = self._invocation_states.get(invocation_id)
        if state is None:
            logger.warning("No debug state for invocation %s, skipping write", invocation_id)
            return
        if self._include_session_state:
            session = invocation_context.session
            self._add_entry(
                invocation_id,
                "session_state_snapshot",
                state=dict(session.state),
                event_count=len(session.events),
            )
        self._add_entry(invocation_id, "invocation_end")
        try:
            self._write(state.model_dump(mode="json", exclude_none=True))
            logger.debug(
                "Wrote debug data for invocation %s to %s", invocation_id, self._output_path
            )
        except Exception as error:
            logger.error("Failed to write debug data to %s: %s", self._output_path, error)
        finally:
            self._invocation_states.pop(invocation_id, None)

    def _write(self, document: dict[str, Any]) -> None:
        fd = os.open(self._output_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, _FILE_MODE)
        if not self._warned_about_mode and os.fstat(fd).st_mode & 0o077:
            self._warned_about_mode = True  # an existing file keeps the mode it had
            logger.warning(
                "Debug output file %s is readable by others and holds whole prompts and "
                "responses; restrict it to mode 600.",
                self._output_path,
            )
        with os.fdopen(fd, "a", encoding="utf-8") as file:
            file.write("---\n")
            _yaml().safe_dump(
                document,
                file,
                default_flow_style=False,
                allow_unicode=True,
                sort_keys=False,
                width=120,
            )

    async def before_agent_callback(
        self, *, agent: BaseAgent, callback_context: CallbackContext
    ) -> types.Content | None:
        self._add_entry(
            callback_context.invocation_id,
            "agent_start",
            agent_name=callback_context.agent_name,
            branch=callback_context._invocation_context.branch,
        )
        return None

    async def after_agent_callback(
        self, *, agent: BaseAgent, callback_context: CallbackContext
    ) -> types.Content | None:
        self._add_entry(
            callback_context.invocation_id, "agent_end", agent_name=callback_context.agent_name
        )
        return None

    async def before_model_callback(
        self, *, callback_context: CallbackContext, llm_request: LlmRequest
    ) -> LlmResponse | None:
        data: dict[str, Any] = {
            "model": llm_request.model,
            "content_count": len(llm_request.contents),
            "contents": [_serialize_content(content) for content in llm_request.contents],
        }
        if llm_request.tools_dict:
            data["tools"] = list(llm_request.tools_dict)
        config = self._config_data(llm_request.config)
        if config:
            data["config"] = config
        self._add_entry(
            callback_context.invocation_id,
            "llm_request",
            agent_name=callback_context.agent_name,
            **data,
        )
        return None

    def _config_data(self, config: types.GenerateContentConfig) -> dict[str, Any]:
        data: dict[str, Any] = {}
        instruction = config.system_instruction
        if instruction and self._include_system_instruction:
            data["system_instruction"] = instruction
        elif isinstance(instruction, str) and instruction:
            data["system_instruction_length"] = len(instruction)
        elif instruction:
            data["has_system_instruction"] = True
        for field in ("temperature", "top_p", "top_k", "max_output_tokens"):
            value = getattr(config, field, None)
            if value is not None:
                data[field] = value
        if config.response_mime_type:
            data["response_mime_type"] = config.response_mime_type
        if config.response_schema:
            data["has_response_schema"] = True
        return data

    async def after_model_callback(
        self, *, callback_context: CallbackContext, llm_response: LlmResponse
    ) -> LlmResponse | None:
        """The error and finish reason are recorded for a call's final response only."""
        data: dict[str, Any] = {
            "content": _serialize_content(llm_response.content),
            "partial": llm_response.partial,
            "turn_complete": llm_response.turn_complete,
        }
        final = llm_response.partial is not True
        if final and llm_response.error_code:
            data["error_code"] = llm_response.error_code
            data["error_message"] = llm_response.error_message
        usage = llm_response.usage_metadata
        if usage:
            data["usage_metadata"] = {
                "prompt_token_count": usage.prompt_token_count,
                "candidates_token_count": usage.candidates_token_count,
                "total_token_count": usage.total_token_count,
                "cached_content_token_count": usage.cached_content_token_count,
            }
        if llm_response.grounding_metadata:
            data["has_grounding_metadata"] = True
        if final and llm_response.finish_reason:
            data["finish_reason"] = str(llm_response.finish_reason)
        if llm_response.model_version:
            data["model_version"] = llm_response.model_version
        self._add_entry(
            callback_context.invocation_id,
            "llm_response",
            agent_name=callback_context.agent_name,
            **data,
        )
        return None

    async def on_model_error_callback(
        self, *, callback_context: CallbackContext, llm_request: LlmRequest, error: Exception
    ) -> LlmResponse | None:
        self._add_entry(
            callback_context.invocation_id,
            "llm_error",
            agent_name=callback_context.agent_name,
            error_type=type(error).__name__,
            error_message=str(error),
            model=llm_request.model,
        )
        return None

    async def before_tool_callback(
        self, *, tool: BaseTool, tool_args: dict[str, Any], tool_context: ToolContext
    ) -> dict[str, Any] | None:
        self._add_tool_entry("tool_call", tool, tool_context, args=tool_args)
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
            return None  # a later plugin's answer to an error already recorded
        error = _classify_tool_result_error(
            tool=tool,
            tool_args=tool_args,
            tool_context=tool_context,
            result=result,
            tool_result_classifier=self._tool_result_classifier,
            log=logger,
        )
        if error is not None:
            self._add_tool_entry(
                "tool_error", tool, tool_context, args=tool_args, result=result, error_message=error
            )
            return None
        self._add_tool_entry("tool_response", tool, tool_context, result=result)
        return None

    async def on_tool_error_callback(
        self,
        *,
        tool: BaseTool,
        tool_args: dict[str, Any],
        tool_context: ToolContext,
        error: Exception,
    ) -> dict[str, Any] | None:
        _mark_tool_error_recorded(self, tool_context)
        self._add_tool_entry(
            "tool_error",
            tool,
            tool_context,
            args=tool_args,
            error_type=type(error).__name__,
            error_message=str(error),
        )
        return None

    def _add_tool_entry(
        self, kind: str, tool: BaseTool, tool_context: ToolContext, **data: Any
    ) -> None:
        """An entry about ``tool``'s call in ``tool_context`` (agent, tool and call id)."""
        self._add_entry(
            tool_context.invocation_id,
            kind,
            agent_name=tool_context.agent_name,
            tool_name=tool.name,
            function_call_id=tool_context.function_call_id,
            **data,
        )


def _now() -> str:
    return datetime.now().isoformat()


def _actions_data(event: Event) -> dict[str, Any]:
    actions = event.actions
    data: dict[str, Any] = {}
    if actions.state_delta:
        data["state_delta"] = actions.state_delta
    if actions.artifact_delta:
        data["artifact_delta"] = dict(actions.artifact_delta)
    if actions.transfer_to_agent:
        data["transfer_to_agent"] = actions.transfer_to_agent
    if actions.escalate:
        data["escalate"] = actions.escalate
    if actions.requested_auth_configs:
        data["requested_auth_configs"] = len(actions.requested_auth_configs)
    return data


def _serialize_content(content: types.Content | None) -> dict[str, Any] | None:
    """A content's role and parts as plain data; inline bytes are left out."""
    if content is None:
        return None
    parts: list[dict[str, Any]] = []
    for part in content.parts or ():
        data: dict[str, Any] = {}
        if part.text:
            data["text"] = part.text
        call = part.function_call
        if call is not None:
            data["function_call"] = {"id": call.id, "name": call.name, "args": call.args}
        response = part.function_response
        if response is not None:
            data["function_response"] = {
                "id": response.id,
                "name": response.name,
                "response": response.response,
            }
        blob = part.inline_data
        if blob is not None:
            data["inline_data"] = {
                "mime_type": blob.mime_type,
                "display_name": blob.display_name,
                "_data_omitted": True,
            }
        file = part.file_data
        if file is not None:
            data["file_data"] = {"file_uri": file.file_uri, "mime_type": file.mime_type}
        result = part.code_execution_result
        if result is not None:
            data["code_execution_result"] = {
                "outcome": str(result.outcome),
                "output": result.output,
            }
        code = part.executable_code
        if code is not None:
            data["executable_code"] = {"language": str(code.language), "code": code.code}
        if data:
            parts.append(data)
    return {"role": content.role, "parts": parts}
