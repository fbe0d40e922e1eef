"""MultimodalToolResultsPlugin: parts a tool returns that the function response cannot
carry (text) reach the model as parts of the next request.

Media parts (inline bytes or a file URI, with a MIME type) need no plugin: the
framework moves them into ``FunctionResponse.parts`` (see
:mod:`pyadk.flows.tool_result_media`), and the plugin does not send them a second time.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from pyadk import types
from pyadk.flows.tool_result_media import as_part, media_part
from pyadk.plugins.base_plugin import BasePlugin

if TYPE_CHECKING:
    from pyadk.agents.callback_context import CallbackContext
    from pyadk.models.llm_request import LlmRequest
    from pyadk.models.llm_response import LlmResponse
    from pyadk.tools.base_tool import BaseTool
    from pyadk.tools.tool_context import ToolContext

PARTS_RETURNED_BY_TOOLS_ID = "temp:PARTS_RETURNED_BY_TOOLS_ID"
"""State key of the parts waiting for the next model request (invocation-scoped)."""
SESSION_PARTS_RETURNED_BY_TOOLS_ID = "multimodal_tool_results_plugin:PARTS_RETURNED_BY_TOOLS_ID"
"""State key of the parts kept for the session with ``retention="session"`` (no
``temp:`` prefix: they must outlive the invocation)."""
_CURRENT_TURN_PARTS_ID = "temp:multimodal_tool_results_plugin:current_turn_parts"
_SESSION_UPDATED_KEY = "temp:multimodal_tool_results_plugin:updated_in_invocation"


def _returned_parts(result: Any) -> list[types.Part] | None:
    """The parts of a tool result that is a Part or a non-empty list starting with one
    (a google-genai ``Part`` is converted; entries that are not parts are left out)."""
    if not isinstance(result, list):
        part = as_part(result)
        return None if part is None else [part]
    if not result or as_part(result[0]) is None:
        return None
    return [part for value in result if (part := as_part(value)) is not None]


def _not_carried(parts: list[types.Part]) -> list[types.Part]:
    """The parts that the function response does not carry itself (no media)."""
    return [part for part in parts if media_part(part) is None]


class MultimodalToolResultsPlugin(BasePlugin):
    """Lets a function tool return a ``types.Part`` or a list of them: the parts that
    ``FunctionResponse.parts`` does not carry (text) are added to the next model request,
    after the function responses. Images and files need no plugin: the framework puts
    them into the function response itself, and the plugin does not repeat them.

    ``retention="next_model_call"`` (default) adds them to the next request only.
    ``retention="session"`` keeps adding the latest saved parts to every later request
    of the session, so follow-up turns can still refer to them; only ``file_data`` and
    text parts are kept across turns (saved in session state, JSON), inline bytes are
    sent once. A tool returning anything else is left alone.
    """

    def __init__(
        self,
        name: str = "multimodal_tool_results_plugin",
        *,
        retention: Literal["next_model_call", "session"] = "next_model_call",
    ) -> None:
        """ValueError when ``retention`` is neither ``"next_model_call"`` nor ``"session"``."""
        if retention not in ("next_model_call", "session"):
            raise ValueError(
                f"retention must be 'next_model_call' or 'session', got {retention!r}."
            )
        super().__init__(name)
        self._retention = retention

    async def after_tool_callback(
        self,
        *,
        tool: BaseTool,
        tool_args: dict[str, Any],
        tool_context: ToolContext,
        result: Any,
    ) -> dict[str, Any] | None:
        """Saves returned parts for the next request; the result itself is unchanged
        (None: later plugins and the agent's callbacks still run)."""
        parts = _returned_parts(result)
        if parts is None:
            return None
        state = tool_context.state
        if self._retention == "session":
            kept = [part.model_dump(mode="json") for part in parts if part.inline_data is None]
            if kept:
                if _SESSION_UPDATED_KEY in state:
                    state[SESSION_PARTS_RETURNED_BY_TOOLS_ID] = [
                        *state[SESSION_PARTS_RETURNED_BY_TOOLS_ID],
                        *kept,
                    ]
                else:  # the first save of this invocation replaces older turns' parts
                    state[_SESSION_UPDATED_KEY] = True
                    state[SESSION_PARTS_RETURNED_BY_TOOLS_ID] = kept
            state[_CURRENT_TURN_PARTS_ID] = [*state.get(_CURRENT_TURN_PARTS_ID, []), *parts]
        else:
            parts = _not_carried(parts)
            if parts:
                state[PARTS_RETURNED_BY_TOOLS_ID] = [
                    *state.get(PARTS_RETURNED_BY_TOOLS_ID, []),
                    *parts,
                ]
        return None

    async def before_model_callback(
        self, *, callback_context: CallbackContext, llm_request: LlmRequest
    ) -> LlmResponse | None:
        """Appends the saved parts to the last content of the request."""
        if not llm_request.contents:
            return None
        state = callback_context.state
        if self._retention == "session":
            current: list[types.Part] = state.get(_CURRENT_TURN_PARTS_ID) or []
            saved = [
                types.Part.model_validate(part)
                for part in state.get(SESSION_PARTS_RETURNED_BY_TOOLS_ID) or []
            ]
            attach = [part for part in saved if part not in current] + _not_carried(current)
            if current:
                state[_CURRENT_TURN_PARTS_ID] = []
        else:
            attach = state.get(PARTS_RETURNED_BY_TOOLS_ID) or []
            if attach:
                state[PARTS_RETURNED_BY_TOOLS_ID] = []
        if attach:
            last = llm_request.contents[-1]
            last.parts = [*(last.parts or []), *attach]
        return None
