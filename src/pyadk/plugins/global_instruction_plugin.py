"""GlobalInstructionPlugin: an instruction put first in every model request of the app."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pyadk import types
from pyadk.plugins.base_plugin import BasePlugin

if TYPE_CHECKING:
    from pyadk.agents.callback_context import CallbackContext
    from pyadk.agents.llm_agent import InstructionProvider
    from pyadk.models.llm_request import LlmRequest
    from pyadk.models.llm_response import LlmResponse


def _prepend(prefix: str, existing: str | types.Content) -> str | types.Content:
    """``prefix`` placed before a system instruction, keeping the instruction's shape."""
    if isinstance(existing, str):
        return f"{prefix}\n\n{existing}"
    return existing.model_copy(update={"parts": [types.Part(text=prefix), *(existing.parts or [])]})


class GlobalInstructionPlugin(BasePlugin):
    """Puts ``global_instruction`` before the system instruction of every model request
    of every agent of the runner: the app-wide replacement of ``LlmAgent``'s
    ``global_instruction`` field.

    A string is a template, filled from session state and artifacts as instructions
    are (``{key}``, ``{key?}``, ``{app:key}``, ``{artifact.name}``, ``{{literal}}``); a
    missing required key fails the model call with an error naming it. An
    ``InstructionProvider`` (sync or async function of a ``ReadonlyContext``) is used as
    it returns, untemplated. An empty instruction changes nothing.
    """

    def __init__(
        self,
        global_instruction: str | InstructionProvider = "",
        name: str = "global_instruction",
    ) -> None:
        super().__init__(name=name)
        self.global_instruction = global_instruction

    async def before_model_callback(
        self, *, callback_context: CallbackContext, llm_request: LlmRequest
    ) -> LlmResponse | None:
        if not self.global_instruction:
            return None
        text = await self._resolve_global_instruction(callback_context)
        if not text:
            return None
        config = llm_request.config
        existing = config.system_instruction
        config.system_instruction = _prepend(text, existing) if existing else text
        return None

    async def _resolve_global_instruction(self, callback_context: CallbackContext) -> str:
        """The instruction's text: a template filled in, or what the provider returned."""
        from pyadk.agents.llm_agent import _resolve_instruction
        from pyadk.utils.instructions_utils import inject_session_state

        text, from_provider = await _resolve_instruction(self.global_instruction, callback_context)
        if from_provider:
            return text
        return await inject_session_state(text, callback_context)
