"""BuiltInCodeExecutor: Gemini runs the code on Google's side."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pyadk.code_executors.base_code_executor import BaseCodeExecutor
from pyadk.code_executors.code_execution_utils import CodeExecutionInput, CodeExecutionResult
from pyadk.utils.model_names import gemini_check_disabled, is_gemini_model

if TYPE_CHECKING:
    from pyadk.agents.invocation_context import InvocationContext
    from pyadk.models.llm_request import LlmRequest

__all__ = ["BuiltInCodeExecutor", "is_gemini_model"]


class BuiltInCodeExecutor(BaseCodeExecutor):
    """Gemini's server-side code execution: adds the ``code_execution`` tool to each
    request. The model writes and runs the code itself; its response carries the
    ``executable_code`` and ``code_execution_result`` parts. Nothing runs locally.

    Other models cannot do this: a request for one raises ValueError (set
    ``ADK_DISABLE_GEMINI_MODEL_ID_CHECK=1`` for Gemini models under other names).
    """

    def execute_code(
        self,
        invocation_context: InvocationContext,
        code_execution_input: CodeExecutionInput,
    ) -> CodeExecutionResult:
        """Not used: the model runs the code."""
        raise NotImplementedError(
            "BuiltInCodeExecutor does not run code locally: the Gemini model runs it."
        )

    def process_llm_request(self, llm_request: LlmRequest) -> None:
        """Adds the ``code_execution`` tool to ``llm_request`` (ValueError when its model
        is not a Gemini model)."""
        from pyadk import types

        if not (is_gemini_model(llm_request.model) or gemini_check_disabled()):
            raise ValueError(
                f"Gemini code execution tool is not supported for model {llm_request.model!r}:"
                " BuiltInCodeExecutor needs a Gemini model. Use SandboxedCodeExecutor to run"
                " the model's code locally."
            )
        config = llm_request.config
        tools = list(config.tools or [])
        tools.append(types.Tool(code_execution={}))
        config.tools = tools
