"""Code executors: run the code an agent's model writes, and feed the result back.

``SandboxedCodeExecutor`` (recommended) runs each block in a locked-down Python
subprocess; ``BuiltInCodeExecutor`` lets Gemini run code on Google's side;
``UnsafeLocalCodeExecutor`` runs code with the agent's own rights (trusted code only).
Only the base class is imported eagerly; the executors load on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pyadk.code_executors.base_code_executor import BaseCodeExecutor
from pyadk.utils.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from pyadk.code_executors.built_in_code_executor import BuiltInCodeExecutor
    from pyadk.code_executors.code_execution_utils import (
        CodeExecutionInput,
        CodeExecutionResult,
        CodeExecutionUtils,
        File,
    )
    from pyadk.code_executors.sandboxed_code_executor import SandboxedCodeExecutor
    from pyadk.code_executors.unsafe_local_code_executor import UnsafeLocalCodeExecutor

__all__ = [
    "BaseCodeExecutor",
    "BuiltInCodeExecutor",
    "CodeExecutionInput",
    "CodeExecutionResult",
    "CodeExecutionUtils",
    "File",
    "SandboxedCodeExecutor",
    "UnsafeLocalCodeExecutor",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "BuiltInCodeExecutor": ".built_in_code_executor",
        "CodeExecutionInput": ".code_execution_utils",
        "CodeExecutionResult": ".code_execution_utils",
        "CodeExecutionUtils": ".code_execution_utils",
        "File": ".code_execution_utils",
        "SandboxedCodeExecutor": ".sandboxed_code_executor",
        "UnsafeLocalCodeExecutor": ".unsafe_local_code_executor",
    },
    globals(),
)
