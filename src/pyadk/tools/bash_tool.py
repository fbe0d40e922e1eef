"""ExecuteBashTool: runs a command the model asks for, after a person approves it.

The command is checked against a :class:`BashToolPolicy` first (a blocked command is
an error result, nobody is asked); every other call waits for approval
(``adk_request_confirmation``, the gate every tool passes). It runs without a shell
(``|``, ``;``, ``$(`` reach the program as plain arguments) in the workspace
directory, in its own process group, under the policy's timeout and resource limits.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import shlex
import signal
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pyadk import types
from pyadk.tools.base_tool import BaseTool

if TYPE_CHECKING:
    from pyadk.tools.tool_context import ToolContext

_NOTHING = "<no {} captured>"


@dataclasses.dataclass(frozen=True)
class BashToolPolicy:
    """Which commands may run, and with what limits.

    ``allowed_command_prefixes``: ``("*",)`` allows any command; otherwise a command
    runs only when its first words are one of the prefixes, compared word by word
    (``"ls"`` allows ``ls -la`` but not ``lsof`` or ``./ls``; ``"git status"`` only
    that subcommand). ``blocked_operators``: strings a command must not contain at
    all (e.g. ``("|", ";", "&&")``). The limits apply to the command's process.
    """

    allowed_command_prefixes: tuple[str, ...] = ("*",)
    blocked_operators: tuple[str, ...] = ()
    timeout_seconds: float | None = 30
    max_memory_bytes: int | None = None
    max_file_size_bytes: int | None = None
    max_child_processes: int | None = None

    def refusal(self, command: str) -> str | None:
        """Why ``command`` may not run, or None when it may."""
        if not command.strip():
            return "Command is required."
        for operator in self.blocked_operators:
            if operator in command:
                return f"Command contains blocked operator: {operator}"
        if "*" in self.allowed_command_prefixes:
            return None
        try:
            words = shlex.split(command)
        except ValueError:
            return "Unable to parse command."
        for prefix in self.allowed_command_prefixes:
            try:
                prefix_words = shlex.split(prefix)
            except ValueError:
                continue
            if prefix_words and words[: len(prefix_words)] == prefix_words:
                return None
        allowed = ", ".join(self.allowed_command_prefixes) or "<none>"
        return f"Command blocked. Permitted prefixes are: {allowed}"


class ExecuteBashTool(BaseTool):
    """The ``execute_bash`` tool: one ``command`` argument, run in ``workspace`` (the
    current directory by default) under ``policy``, after a person approves it.

    Its result: ``stdout``, ``stderr`` and ``returncode``; an ``error`` (and what was
    captured) when the command is refused, rejected, times out or cannot start."""

    def __init__(self, *, workspace: Path | None = None, policy: BashToolPolicy | None = None):
        policy = policy or BashToolPolicy()
        if "*" in policy.allowed_command_prefixes:
            allowed = "any command"
        else:
            prefixes = ", ".join(policy.allowed_command_prefixes) or "<none>"
            allowed = f"commands starting with: {prefixes}"
        super().__init__(
            name="execute_bash",
            description=(
                "Runs a command (without a shell) in the workspace directory and returns "
                f"its output. Allowed: {allowed}. A person approves each command first."
            ),
            require_confirmation=True,
        )
        self._workspace = workspace or Path.cwd()
        self._policy = policy

    def _get_declaration(self) -> types.FunctionDeclaration | None:
        return types.FunctionDeclaration(
            name=self.name,
            description=self.description,
            parameters=types.Schema(
                type=types.Type.OBJECT,
                properties={
                    "command": types.Schema(
                        type=types.Type.STRING, description="The command to run."
                    )
                },
                required=["command"],
            ),
        )

    async def check_require_confirmation(
        self, args: dict[str, Any], tool_context: ToolContext
    ) -> bool:
        """A command the policy refuses is not put to anyone: its error comes at once."""
        command = args.get("command")
        return isinstance(command, str) and self._policy.refusal(command) is None

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        command = args.get("command")
        if not isinstance(command, str) or not command:
            return {"error": "Command is required."}
        refusal = self._policy.refusal(command)
        if refusal is not None:
            return {"error": refusal}
        if os.name != "posix":
            return {"error": "ExecuteBashTool runs on POSIX systems only."}
        return await _run(shlex.split(command), self._workspace, self._policy)


async def _run(argv: list[str], workspace: Path, policy: BashToolPolicy) -> dict[str, Any]:
    try:
        process = await asyncio.create_subprocess_exec(
            *argv,
            cwd=str(workspace),
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            start_new_session=True,  # its own process group, killed as a whole
            preexec_fn=lambda: _limit(policy),
        )
    except OSError as error:
        return {"error": f"Execution failed: {error}", **_captured(None, None)}
    try:
        stdout, stderr = await asyncio.wait_for(process.communicate(), policy.timeout_seconds)
    except TimeoutError:
        _kill_group(process)
        stdout, stderr = await process.communicate()
        return {
            "error": f"Command timed out after {policy.timeout_seconds:g} seconds.",
            **_captured(stdout, stderr),
            "returncode": process.returncode,
        }
    finally:
        _kill_group(process)  # what the command left running in its group
    return {**_captured(stdout, stderr), "returncode": process.returncode}


def _captured(stdout: bytes | None, stderr: bytes | None) -> dict[str, str]:
    return {
        "stdout": stdout.decode(errors="replace") if stdout else _NOTHING.format("stdout"),
        "stderr": stderr.decode(errors="replace") if stderr else _NOTHING.format("stderr"),
    }


def _kill_group(process: asyncio.subprocess.Process) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _limit(policy: BashToolPolicy) -> None:
    """In the child, before the command starts: no core dumps, the policy's limits."""
    import resource

    limits = [
        (resource.RLIMIT_CORE, 0),
        (resource.RLIMIT_AS, policy.max_memory_bytes),
        (resource.RLIMIT_FSIZE, policy.max_file_size_bytes),
        (resource.RLIMIT_NPROC, policy.max_child_processes),
    ]
    for which, value in limits:
        if value is not None:
            try:
                resource.setrlimit(which, (value, value))
            except (ValueError, OSError):
                pass  # cannot log safely in a forked child; the command still runs
