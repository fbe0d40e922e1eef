"""The tools a SkillToolset gives the model: list, search, load, read, run."""

from __future__ import annotations

import logging
import mimetypes
from typing import TYPE_CHECKING, Any

from pyadk import types
from pyadk.skills import prompt
from pyadk.skills._utils import _validate_relative_resource_path
from pyadk.tools import _skill_instruction as names
from pyadk.tools._skill_scripts import (
    UnsupportedScriptType,
    run_skill_script,
    script_argv,
    script_kind,
)
from pyadk.tools.base_tool import BaseTool

if TYPE_CHECKING:
    from pyadk.models.llm_request import LlmRequest
    from pyadk.skills.models import Skill
    from pyadk.tools.skill_toolset import SkillToolset
    from pyadk.tools.tool_context import ToolContext

logger = logging.getLogger(__name__)

BINARY_FILE_DETECTED_MSG = (
    "Binary file detected: its content follows in the conversation for you to read."
)
_RESOURCE_DIRS = ("references/", "assets/", "scripts/")


def _error(message: str, code: str) -> dict[str, str]:
    return {"error": message, "error_code": code}


def _required(args: dict[str, Any], *keys: str) -> dict[str, str] | None:
    missing = [f"Argument '{key}' is required." for key in keys if not args.get(key)]
    return _error("\n".join(missing), "INVALID_ARGUMENTS") if missing else None


def _string(description: str) -> dict[str, str]:
    return {"type": "string", "description": description}


class _SkillTool(BaseTool):
    """A tool of a SkillToolset: declared with a JSON schema, it also lets the toolset
    add its instructions to the request (once, through the first of its tools)."""

    TOOL_NAME = ""
    _DESCRIPTION = ""

    def __init__(self, toolset: SkillToolset, *, description: str | None = None) -> None:
        super().__init__(name=self.TOOL_NAME, description=description or self._DESCRIPTION)
        self._toolset = toolset

    def _parameters(self) -> dict[str, Any]:
        return {"type": "object", "properties": {}}

    def _get_declaration(self) -> types.FunctionDeclaration | None:
        return types.FunctionDeclaration(
            name=self.name, description=self.description, parameters_json_schema=self._parameters()
        )

    async def _fetch(self, skill_name: str, tool_context: ToolContext) -> Skill | dict[str, str]:
        """The skill, or the error result for the model."""
        try:
            skill = await self._toolset._get_or_fetch_skill(skill_name, tool_context.invocation_id)
        except Exception as exc:
            return _error(
                f"Failed to fetch skill '{skill_name}' from the registry: {exc}", "REGISTRY_ERROR"
            )
        if skill is None:
            return _error(f"Skill '{skill_name}' not found.", "SKILL_NOT_FOUND")
        return skill


def _count_failure(tool_context: ToolContext, kind: str) -> int:
    """Counts lookups of missing files this invocation (temp: state, never persisted)."""
    key = f"temp:_adk_skill_{kind}_not_found_count_{tool_context.invocation_id}"
    count = int(tool_context.state.get(key) or 0) + 1
    tool_context.state[key] = count
    return count


class ListSkillsTool(_SkillTool):
    """``list_skills()``: the toolset's skills as an ``<available_skills>`` XML block."""

    TOOL_NAME = names.LIST_SKILLS
    _DESCRIPTION = "Lists the available skills: the name and description of each."

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        return prompt.format_skills_as_xml(self._toolset._list_skills())


class SearchSkillsTool(_SkillTool):
    """``search_skills(query)``: the frontmatter of the registry's matching skills."""

    TOOL_NAME = names.SEARCH_SKILLS
    _DESCRIPTION = "Searches the skill registry for skills matching a query (words or meaning)."

    def __init__(self, toolset: SkillToolset) -> None:
        if toolset._registry is None:
            raise ValueError("SearchSkillsTool needs a SkillToolset with a registry.")
        super().__init__(toolset, description=toolset._registry.search_tool_description())

    def _parameters(self) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": {"query": _string("What to search for.")},
            "required": ["query"],
        }

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        if problem := _required(args, "query"):
            return problem
        registry = self._toolset._registry
        assert registry is not None
        try:
            found = await registry.search_skills(query=args["query"])
        except Exception as exc:
            return _error(f"Failed to search the skill registry: {exc}", "REGISTRY_ERROR")
        results = []
        for frontmatter in found:
            if frontmatter.name in self._toolset._skills:
                logger.warning("Registry skill %r hidden by a local skill.", frontmatter.name)
                continue
            results.append(frontmatter.model_dump())
        return results


class LoadSkillTool(_SkillTool):
    """``load_skill(skill_name)``: the skill's instructions (the SKILL.md body)."""

    TOOL_NAME = names.LOAD_SKILL
    _DESCRIPTION = "Loads a skill: returns the instructions of its SKILL.md."

    def _parameters(self) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": {"skill_name": _string("Name of the skill to load.")},
            "required": ["skill_name"],
        }

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        if problem := _required(args, "skill_name"):
            return problem
        skill_name: str = args["skill_name"]
        skill = await self._fetch(skill_name, tool_context)
        if isinstance(skill, dict):
            return skill
        self._toolset._record_activation(tool_context, skill_name)
        instructions = skill.instructions
        if skill.frontmatter.metadata.get("adk_inject_state"):
            from pyadk.utils.instructions_utils import inject_session_state

            instructions = await inject_session_state(instructions, tool_context)
        return {
            "skill_name": skill_name,
            "instructions": instructions,
            "frontmatter": skill.frontmatter.model_dump(),
        }


class LoadSkillResourceTool(_SkillTool):
    """``load_skill_resource(skill_name, file_path)``: a file of ``references/``,
    ``assets/`` or ``scripts/``; binary files are shown to the model as inline data."""

    TOOL_NAME = names.LOAD_SKILL_RESOURCE
    _DESCRIPTION = "Reads a file of a skill: references/..., assets/... or scripts/...."

    def _parameters(self) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": {
                "skill_name": _string("Name of the skill."),
                "file_path": _string(
                    "Path of the file in the skill, e.g. 'references/guide.md', "
                    "'assets/template.txt' or 'scripts/run.py'."
                ),
            },
            "required": ["skill_name", "file_path"],
        }

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        if problem := _required(args, "skill_name", "file_path"):
            return problem
        skill_name: str = args["skill_name"]
        file_path: str = args["file_path"]
        if not file_path.startswith(_RESOURCE_DIRS):
            return _error(
                "Path must start with 'references/', 'assets/', or 'scripts/'.",
                "INVALID_RESOURCE_PATH",
            )
        try:
            _validate_relative_resource_path(file_path)
        except ValueError:
            return _error(f"Path traversal detected: {file_path!r}", "INVALID_RESOURCE_PATH")
        skill = await self._fetch(skill_name, tool_context)
        if isinstance(skill, dict):
            return skill
        content = _resource(skill, file_path)
        if content is None:
            count = _count_failure(tool_context, "resource")
            message = f"Resource '{file_path}' not found in skill '{skill_name}'."
            if count > 1:
                return _error(
                    f"{message} This is lookup failure #{count} of this invocation: do "
                    "not try another path; tell the user and stop.",
                    "RESOURCE_NOT_FOUND_FATAL",
                )
            return _error(message, "RESOURCE_NOT_FOUND")
        if isinstance(content, bytes):
            return {
                "skill_name": skill_name,
                "file_path": file_path,
                "status": BINARY_FILE_DETECTED_MSG,
            }
        return {"skill_name": skill_name, "file_path": file_path, "content": content}

    async def process_llm_request(
        self, *, tool_context: ToolContext, llm_request: LlmRequest
    ) -> None:
        """Also shows the model the binary files it has just asked for."""
        await super().process_llm_request(tool_context=tool_context, llm_request=llm_request)
        if not llm_request.contents:
            return
        for part in llm_request.contents[-1].parts or []:
            response = part.function_response
            if response is None or response.name != self.name:
                continue
            data = response.response or {}
            if data.get("status") != BINARY_FILE_DETECTED_MSG:
                continue
            skill_name, file_path = data.get("skill_name"), data.get("file_path")
            try:
                skill = await self._toolset._get_or_fetch_skill(
                    str(skill_name), tool_context.invocation_id
                )
            except Exception as exc:
                logger.warning("Could not fetch skill %r: %s", skill_name, exc)
                continue
            content = _resource(skill, str(file_path)) if skill else None
            if not isinstance(content, bytes):
                continue
            mime_type = mimetypes.guess_type(str(file_path))[0] or "application/octet-stream"
            llm_request.contents.append(
                types.Content(
                    role="user",
                    parts=[
                        types.Part.from_text(text=f"The content of binary file '{file_path}' is:"),
                        types.Part.from_bytes(data=content, mime_type=mime_type),
                    ],
                )
            )


def _resource(skill: Skill, file_path: str) -> str | bytes | None:
    folder, _, name = file_path.partition("/")
    if folder == "references":
        return skill.resources.get_reference(name)
    if folder == "assets":
        return skill.resources.get_asset(name)
    script = skill.resources.get_script(name) if folder == "scripts" else None
    return script.src if script is not None else None


class RunSkillScriptTool(_SkillTool):
    """``run_skill_script(skill_name, file_path, args?, short_options?,
    positional_args?)``: runs a script through the toolset's (or agent's) code executor."""

    TOOL_NAME = names.RUN_SKILL_SCRIPT
    _DESCRIPTION = "Runs a script of a skill's scripts/ folder and returns its output."

    def _parameters(self) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": {
                "skill_name": _string("Name of the skill."),
                "file_path": _string("Path of the script, e.g. 'scripts/report.py'."),
                "args": {
                    "anyOf": [
                        {"type": "object"},
                        {"type": "array", "items": {"type": "string"}},
                    ],
                    "description": (
                        "Arguments: an object of long options (--key value) or the full "
                        "list of arguments. When it is a list, give neither "
                        "'short_options' nor 'positional_args'."
                    ),
                },
                "short_options": {
                    "type": "object",
                    "description": "Short options (-k value) as an object; not with a list 'args'.",
                },
                "positional_args": {
                    "type": "array",
                    "items": {"type": "string"},
                    "description": "Positional arguments; not with a list 'args'.",
                },
            },
            "required": ["skill_name", "file_path"],
        }

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        if problem := _required(args, "skill_name", "file_path"):
            return problem
        skill_name: str = args["skill_name"]
        file_path: str = args["file_path"]
        if problem := _argument_errors(args):
            return problem
        name = file_path.removeprefix("scripts/")
        try:
            name = _validate_relative_resource_path(name)
        except ValueError:
            return _error(f"Path traversal detected: {file_path!r}", "INVALID_RESOURCE_PATH")
        skill = await self._fetch(skill_name, tool_context)
        if isinstance(skill, dict):
            return skill
        if skill.resources.get_script(name) is None:
            count = _count_failure(tool_context, "script")
            message = f"Script '{file_path}' not found in skill '{skill_name}'."
            if count > 1:
                return _error(
                    f"{message} This is script lookup failure #{count} of this invocation: "
                    "do not try another script; tell the user and stop.",
                    "SCRIPT_NOT_FOUND_FATAL",
                )
            return _error(message, "SCRIPT_NOT_FOUND")
        try:
            kind = script_kind(name)
        except UnsupportedScriptType as exc:
            return _error(str(exc), "UNSUPPORTED_SCRIPT_TYPE")
        executor = self._toolset._executor_for(tool_context)
        if executor is None:
            return _error(
                "No code executor is configured: give the SkillToolset (or the agent) a "
                "code_executor to run scripts.",
                "NO_CODE_EXECUTOR",
            )
        if kind == "shell" and _refuses_processes(executor):
            return _error(
                f"Cannot run '{file_path}': shell scripts start a process, which "
                f"{type(executor).__name__} refuses. Use a Python script, or an "
                "executor that allows processes for skills you trust.",
                "EXECUTION_ERROR",
            )
        try:
            return await run_skill_script(
                executor,
                tool_context.invocation_context,
                skill,
                name,
                file_path,
                script_argv(
                    args.get("args"), args.get("short_options"), args.get("positional_args")
                ),
                self._toolset._script_timeout,
                artifacts_to=tool_context if self._toolset._save_output_artifacts else None,
            )
        except Exception as exc:
            logger.exception("Running %r of skill %r failed", file_path, skill_name)
            message = str(exc)
            message = message if len(message) <= 200 else message[:200] + "..."
            return _error(
                f"Failed to execute script '{file_path}':\n{type(exc).__name__}: {message}",
                "EXECUTION_ERROR",
            )


def _argument_errors(args: dict[str, Any]) -> dict[str, str] | None:
    script_args = args.get("args")
    short_options = args.get("short_options")
    positional = args.get("positional_args")
    errors = []
    if script_args is not None and not isinstance(script_args, dict | list):
        errors.append(
            f"'args' must be an object or a list of strings, got {type(script_args).__name__}."
        )
    if short_options is not None and not isinstance(short_options, dict):
        errors.append(f"'short_options' must be an object, got {type(short_options).__name__}.")
    if positional is not None and not isinstance(positional, list):
        errors.append(
            f"'positional_args' must be a list of strings, got {type(positional).__name__}."
        )
    if isinstance(script_args, list) and (short_options or positional):
        errors.append("Cannot give 'short_options' or 'positional_args' when 'args' is a list.")
    return _error("\n".join(errors), "INVALID_ARGUMENTS") if errors else None


def _refuses_processes(executor: Any) -> bool:
    from pyadk.code_executors.sandboxed_code_executor import SandboxedCodeExecutor

    return isinstance(executor, SandboxedCodeExecutor)
