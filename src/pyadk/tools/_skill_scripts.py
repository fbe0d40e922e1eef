"""Running a skill's script through a code executor (sandboxed by default in the docs).

The script and every file of its skill are written into a fresh temporary directory
(``references/``, ``assets/``, ``scripts/``), which becomes the working directory; a
Python script then runs with ``runpy`` as ``__main__``, a shell script with ``bash``.
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import TYPE_CHECKING, Any

from pyadk.code_executors.code_execution_utils import CodeExecutionInput
from pyadk.skills._utils import _validate_relative_resource_path
from pyadk.tools._skill_artifacts import save_generated_files

if TYPE_CHECKING:
    from pyadk.agents.invocation_context import InvocationContext
    from pyadk.code_executors.base_code_executor import BaseCodeExecutor
    from pyadk.skills.models import Skill
    from pyadk.tools.tool_context import ToolContext

logger = logging.getLogger(__name__)

_SHELL_MARK = "__pyadk_skill_shell_result__"

_PROLOGUE = """\
import atexit, json, os, runpy, shutil, subprocess, sys, tempfile
_files = {files!r}
if {in_place!r}:
    _dir = os.getcwd()
else:
    _dir = tempfile.mkdtemp(prefix="skill-")
    atexit.register(shutil.rmtree, _dir, True)
for _rel, _content in _files.items():
    _path = os.path.join(_dir, _rel)
    os.makedirs(os.path.dirname(_path), exist_ok=True)
    if isinstance(_content, bytes):
        with open(_path, "wb") as _f:
            _f.write(_content)
    else:
        with open(_path, "w", encoding="utf-8") as _f:
            _f.write(_content)
os.chdir(_dir)
"""

_PYTHON = """\
sys.argv = {argv!r}
sys.path.insert(0, os.path.dirname(os.path.abspath({path!r})))
runpy.run_path({path!r}, run_name="__main__")
"""

_SHELL = """\
try:
    _r = subprocess.run({argv!r}, capture_output=True, text=True, encoding="utf-8",
                        errors="replace", timeout={timeout!r}, cwd=_dir)
    _out = {{"stdout": _r.stdout, "stderr": _r.stderr, "returncode": _r.returncode}}
except subprocess.TimeoutExpired as _e:
    _o = _e.stdout or ""
    _o = _o.decode("utf-8", "replace") if isinstance(_o, bytes) else _o
    _out = {{"stdout": _o, "stderr": "Timed out after {timeout}s", "returncode": -1}}
print("\\n" + {mark!r} + json.dumps(_out))
"""


class UnsupportedScriptType(ValueError):
    """The script is neither Python (.py) nor shell (.sh, .bash)."""


def script_argv(
    args: dict[str, Any] | list[Any] | None,
    short_options: dict[str, Any] | None,
    positional_args: list[Any] | None,
) -> list[str]:
    """Command-line arguments: a list as given, else ``--key value`` pairs, then
    ``-k value`` pairs, then ``--`` and the positional arguments."""
    if isinstance(args, list):
        return [str(v) for v in args]
    argv: list[str] = []
    for key, value in (args or {}).items():
        argv += [f"--{key}", str(value)]
    for key, value in (short_options or {}).items():
        argv += [f"-{key}", str(value)]
    if positional_args:
        argv += ["--", *(str(v) for v in positional_args)]
    return argv


def script_kind(file_path: str) -> str:
    """'python' or 'shell'; UnsupportedScriptType otherwise."""
    ext = file_path.rsplit(".", 1)[-1].lower() if "." in file_path else ""
    if ext == "py":
        return "python"
    if ext in ("sh", "bash"):
        return "shell"
    shown = f"'.{ext}'" if ext else "(no extension)"
    raise UnsupportedScriptType(
        f"Unsupported script type {shown}. Supported types: .py, .sh, .bash"
    )


def skill_files(skill: Skill) -> dict[str, str | bytes]:
    """Every file of the skill by its path in the skill folder (``references/...``)."""
    files: dict[str, str | bytes] = {}
    for name, content in skill.resources.references.items():
        files[f"references/{_validate_relative_resource_path(name)}"] = content
    for name, content in skill.resources.assets.items():
        files[f"assets/{_validate_relative_resource_path(name)}"] = content
    for name, script in skill.resources.scripts.items():
        files[f"scripts/{_validate_relative_resource_path(name)}"] = script.src
    return files


def build_script_code(
    skill: Skill, script_name: str, argv: list[str], timeout: float, *, in_place: bool = False
) -> str:
    """Python code that materialises the skill and runs ``scripts/<script_name>``: in a
    new temporary directory, or in the working directory with ``in_place=True``."""
    path = f"scripts/{script_name}"
    code = _PROLOGUE.format(files=skill_files(skill), in_place=in_place)
    if script_kind(script_name) == "python":
        return code + _PYTHON.format(argv=[path, *argv], path=path)
    return code + _SHELL.format(argv=["bash", path, *argv], timeout=timeout, mark=_SHELL_MARK)


def _with_timeout(executor: BaseCodeExecutor, timeout: float) -> BaseCodeExecutor:
    """The executor, its ``timeout_seconds`` lowered to ``timeout`` if it was higher."""
    current = executor.timeout_seconds
    if current is not None and current <= timeout:
        return executor
    return executor.model_copy(update={"timeout_seconds": timeout})


async def run_skill_script(
    executor: BaseCodeExecutor,
    invocation_context: InvocationContext | None,
    skill: Skill,
    script_name: str,
    file_path: str,
    argv: list[str],
    timeout: float,
    artifacts_to: ToolContext | None = None,
) -> dict[str, Any]:
    """Runs the script; the result the model gets (stdout, stderr, status).

    With ``artifacts_to`` (a sandboxed executor's tool context), the files the script
    creates or changes are saved as artifacts and listed in ``saved_artifacts``.
    """
    executor = _with_timeout(executor, timeout)
    in_place = artifacts_to is not None
    if in_place:  # the sandbox returns the files of its fresh working directory
        more = executor.max_output_files + len(skill_files(skill))  # type: ignore[attr-defined]
        executor = executor.model_copy(update={"max_output_files": more})
    code = build_script_code(skill, script_name, argv, timeout, in_place=in_place)
    result = await asyncio.to_thread(
        executor.execute_code,
        invocation_context,  # type: ignore[arg-type]
        CodeExecutionInput(code=code),
    )
    stdout, stderr, rc = result.stdout, result.stderr, result.exit_code
    if script_kind(script_name) == "shell":
        stdout, stderr, rc = _shell_outcome(stdout, stderr, rc)
    if (rc is not None and rc != 0) or (stderr and not stdout):
        status = "error"
    elif stderr:
        status = "warning"
    else:
        status = "success"
    response: dict[str, Any] = {
        "skill_name": skill.name,
        "file_path": file_path,
        "stdout": stdout,
        "stderr": stderr,
        "status": status,
    }
    if artifacts_to is not None:
        saved, skipped = await save_generated_files(
            artifacts_to, result.output_files, skill_files(skill)
        )
        if saved:
            response["saved_artifacts"] = saved
        if skipped:
            response["skipped_artifacts"] = skipped
    return response


def _shell_outcome(stdout: str, stderr: str, rc: int | None) -> tuple[str, str, int | None]:
    """The shell script's own output and status, from the wrapper's last line."""
    _, mark, tail = stdout.rpartition(_SHELL_MARK)
    if not mark:
        return stdout, stderr, rc  # the wrapper failed before running bash
    try:
        out = json.loads(tail.strip().splitlines()[0])
    except (ValueError, IndexError):
        return stdout, stderr, rc
    code = out.get("returncode", 0)
    err = out.get("stderr", "")
    if code not in (0, -1):
        err = f"{err.rstrip()}\nExit code {code}" if err else f"Exit code {code}"
    return out.get("stdout", ""), err, code
