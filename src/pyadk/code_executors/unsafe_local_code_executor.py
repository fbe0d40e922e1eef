"""UnsafeLocalCodeExecutor: runs model-written code with the agent's own rights."""

from __future__ import annotations

import logging
import os
import sys
from typing import TYPE_CHECKING, Any

from pydantic import Field

from pyadk.code_executors._process import run_child
from pyadk.code_executors.base_code_executor import BaseCodeExecutor
from pyadk.code_executors.code_execution_utils import CodeExecutionInput, CodeExecutionResult

if TYPE_CHECKING:
    from pyadk.agents.invocation_context import InvocationContext

logger = logging.getLogger(__name__)

# The child reads the program from stdin (no argv size limit) and prints a failure's
# traceback without this runner's own frame: the model should see only its code.
_RUNNER = """
import sys, traceback
_source = sys.stdin.buffer.read().decode("utf-8")
_globals = {"__name__": "__main__", "__builtins__": __builtins__}
try:
    exec(compile(_source, "<code>", "exec"), _globals)
except SystemExit:
    raise
except BaseException as exc:
    tb = exc.__traceback__
    traceback.print_exception(type(exc), exc, tb.tb_next if tb else None, file=sys.stderr)
    sys.exit(1)
"""


class UnsafeLocalCodeExecutor(BaseCodeExecutor):
    """Runs each code block in a child Python process with the agent's environment
    variables (API keys included), file system, network and ``sys.path``.

    UNSAFE: the code can do anything the agent's process can. Use it only for code you
    trust; for model-written code use :class:`SandboxedCodeExecutor`. Not stateful.
    """

    stateful: bool = Field(default=False, frozen=True, exclude=True)
    optimize_data_file: bool = Field(default=False, frozen=True, exclude=True)
    timeout_seconds: float | None = 300
    """Wall-clock seconds one run may take (None: wait forever)."""

    def __init__(self, **data: Any) -> None:
        if data.get("stateful"):
            raise ValueError("Cannot set `stateful=True` in UnsafeLocalCodeExecutor.")
        if data.get("optimize_data_file"):
            raise ValueError("Cannot set `optimize_data_file=True` in UnsafeLocalCodeExecutor.")
        super().__init__(**data)

    def execute_code(
        self,
        invocation_context: InvocationContext,
        code_execution_input: CodeExecutionInput,
    ) -> CodeExecutionResult:
        """Runs the code; a non-zero exit or timeout gives a non-empty ``stderr``."""
        logger.debug("Executing code:\n%s", code_execution_input.code)
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
        env["PYTHONIOENCODING"] = "utf-8"
        output = run_child(
            [sys.executable, "-c", _RUNNER],
            code=code_execution_input.code,
            env=env,
            timeout=self.timeout_seconds,
        )
        stderr = output.stderr
        if output.timed_out:
            note = f"Code execution timed out after {self.timeout_seconds:g} seconds."
            stderr = f"{stderr}\n{note}" if stderr else note
        elif output.exit_code == 0:
            stderr = ""  # warnings on stderr do not make a run fail
        elif not stderr:
            stderr = f"Code execution exited with status {output.exit_code}."
        return CodeExecutionResult(stdout=output.stdout, stderr=stderr, exit_code=output.exit_code)
