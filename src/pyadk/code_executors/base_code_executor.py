"""BaseCodeExecutor: runs the code blocks an agent's model writes."""

import abc
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict

from pyadk.utils.attribute_lookup import PlainAttributeLookup

if TYPE_CHECKING:
    from pyadk.agents.invocation_context import InvocationContext
    from pyadk.code_executors.code_execution_utils import CodeExecutionInput, CodeExecutionResult


class BaseCodeExecutor(PlainAttributeLookup, BaseModel, abc.ABC):
    """Runs code blocks found in model responses; the flow feeds the result back.

    Set one as ``LlmAgent(code_executor=...)``. When the model's answer contains a code
    block (one of ``code_block_delimiters``), the text after the block is dropped, the
    block runs, its result becomes an event and the model is called again to read it.
    """

    model_config = ConfigDict(extra="forbid", defer_build=True)

    optimize_data_file: bool = False
    """Turn CSV files of the user's message into files the code can load (not supported
    by pyadk's executors: setting it raises)."""
    stateful: bool = False
    """Runs of one session share variables (executors that cannot, refuse True)."""
    error_retry_attempts: int = 2
    """Consecutive failed runs in one invocation after which code is no longer run."""
    code_block_delimiters: list[tuple[str, str]] = [
        ("```tool_code\n", "\n```"),
        ("```python\n", "\n```"),
    ]
    """(lead, trail) pairs enclosing a code block; the first also formats code sent back
    to the model."""
    execution_result_delimiters: tuple[str, str] = ("```tool_output\n", "\n```")
    """(lead, trail) enclosing a run's output when it is sent back to the model."""
    timeout_seconds: float | None = None
    """Wall-clock seconds one run may take (None: no limit)."""

    @abc.abstractmethod
    def execute_code(
        self,
        invocation_context: "InvocationContext",
        code_execution_input: "CodeExecutionInput",
    ) -> "CodeExecutionResult":
        """Runs ``code_execution_input.code`` and returns what it printed and wrote.

        Called from a worker thread: it may block.
        """
