"""SkillToolset: gives an agent skills, which its model lists, loads, reads and runs."""

from __future__ import annotations

import copy
import enum
import inspect
import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from pyadk.skills import prompt
from pyadk.tools import _skill_instruction as names
from pyadk.tools._skill_instruction import build_skill_system_instruction
from pyadk.tools._skill_tools import (
    ListSkillsTool,
    LoadSkillResourceTool,
    LoadSkillTool,
    RunSkillScriptTool,
    SearchSkillsTool,
)
from pyadk.tools.base_tool import BaseTool
from pyadk.tools.base_toolset import BaseToolset, ToolPredicate

if TYPE_CHECKING:
    from pyadk.agents.readonly_context import ReadonlyContext
    from pyadk.code_executors.base_code_executor import BaseCodeExecutor
    from pyadk.models.llm_request import LlmRequest
    from pyadk.skills.models import Skill
    from pyadk.skills.skill_registry import SkillRegistry
    from pyadk.tools.tool_context import ToolContext

__all__ = [
    "DEFAULT_SKILL_SYSTEM_INSTRUCTION",
    "ListSkillsTool",
    "LoadSkillResourceTool",
    "LoadSkillTool",
    "RunSkillScriptTool",
    "SearchSkillsTool",
    "SkillDiscoveryMode",
    "SkillToolset",
]

logger = logging.getLogger(__name__)

_DEFAULT_SCRIPT_TIMEOUT = 300
_CACHED_INVOCATIONS = 16

DEFAULT_SKILL_SYSTEM_INSTRUCTION = build_skill_system_instruction()
"""The skill guidance with every tool named and no prefix."""


class SkillDiscoveryMode(enum.Enum):
    """How the model learns which local skills exist."""

    LAZY = "lazy"
    """It calls ``list_skills`` (the default)."""
    EAGER = "eager"
    """The catalog is in the system instruction; ``list_skills`` is not offered."""


def _activated_key(agent_name: str) -> str:
    return f"_adk_activated_skill_{agent_name}"


class SkillToolset(BaseToolset):
    """Offers skills to an agent's model through ``list_skills``, ``load_skill``,
    ``load_skill_resource``, ``run_skill_script`` (and ``search_skills`` with a
    ``registry``), and adds how to use them to the system instruction.

    Scripts run through ``code_executor`` (else the agent's ``code_executor``; without
    either, ``run_skill_script`` is not offered). Pass a
    :class:`~pyadk.code_executors.SandboxedCodeExecutor` to run them locked down.
    ``script_timeout`` bounds every script run (seconds).

    ``additional_tools`` (callables, tools or toolsets) are offered once a skill naming
    them in ``metadata.adk_additional_tools`` has been loaded by the agent.

    ``save_output_artifacts=True`` (with a ``SandboxedCodeExecutor`` only) saves the files
    a script writes as artifacts.

    Not built (they raise NotImplementedError): ``environment``, ``skills_folder``,
    ``lifecycle_config``.
    """

    def __init__(
        self,
        skills: list[Skill] | None = None,
        *,
        registry: SkillRegistry | None = None,
        code_executor: BaseCodeExecutor | None = None,
        environment: Any = None,
        skills_folder: Any = None,
        script_timeout: int = _DEFAULT_SCRIPT_TIMEOUT,
        save_output_artifacts: bool = False,
        additional_tools: Sequence[Any] | None = None,
        tool_name_prefix: str | None = None,
        tool_filter: ToolPredicate | list[str] | None = None,
        discovery_mode: SkillDiscoveryMode = SkillDiscoveryMode.LAZY,
        lifecycle_config: Any = None,
    ) -> None:
        super().__init__(tool_filter=tool_filter)
        sandbox = "scripts run through a code_executor (e.g. SandboxedCodeExecutor)"
        for option, value, instead in (
            ("environment", environment, sandbox),
            ("skills_folder", skills_folder, sandbox),
            ("lifecycle_config", lifecycle_config, "loaded skills stay active all session"),
        ):
            if value is not None:
                raise NotImplementedError(
                    f"SkillToolset({option}=...) is not supported by pyadk: {instead}. "
                    "See docs/skills.md."
                )
        if save_output_artifacts and not _is_sandboxed(code_executor):
            raise ValueError(
                "save_output_artifacts=True needs code_executor=SandboxedCodeExecutor(...): "
                "it returns the files a script writes."
            )
        self._save_output_artifacts = save_output_artifacts
        self._skills: dict[str, Skill] = {}
        for skill in skills or []:
            if skill.name in self._skills:
                raise ValueError(f"Duplicate skill name '{skill.name}'.")
            self._skills[skill.name] = skill
        self._registry = registry
        self._fetched: dict[str, dict[str, Skill | None]] = {}
        self._code_executor = code_executor
        self._script_timeout = script_timeout
        self.tool_name_prefix = tool_name_prefix
        self._discovery_mode = discovery_mode
        self._provided_tools: dict[str, BaseTool] = {}
        self._provided_toolsets: list[BaseToolset] = []
        for item in additional_tools or []:
            self._add_provided(item)
        self._additional = list(additional_tools or [])
        self._tools: list[BaseTool] = []
        if discovery_mode is SkillDiscoveryMode.LAZY:
            self._tools.append(ListSkillsTool(self))
        self._tools += [LoadSkillTool(self), LoadSkillResourceTool(self), RunSkillScriptTool(self)]
        if registry is not None:
            self._tools.append(SearchSkillsTool(self))

    def _add_provided(self, item: Any) -> None:
        from pyadk.tools.function_tool import FunctionTool

        if isinstance(item, BaseToolset):
            self._provided_toolsets.append(item)
        elif isinstance(item, BaseTool):
            self._provided_tools[item.name] = item
        elif callable(item):
            tool = FunctionTool(item)
            self._provided_tools[tool.name] = tool
        else:
            raise TypeError(f"additional_tools item {item!r} is not a tool, toolset or callable.")

    def clone_with_updated_skills(self, skills: list[Skill]) -> SkillToolset:
        """A toolset configured as this one, with other skills."""
        return SkillToolset(
            skills,
            registry=self._registry,
            code_executor=self._code_executor,
            script_timeout=self._script_timeout,
            save_output_artifacts=self._save_output_artifacts,
            additional_tools=self._additional,
            tool_name_prefix=self.tool_name_prefix,
            tool_filter=self.tool_filter,
            discovery_mode=self._discovery_mode,
        )

    @property
    def skills(self) -> list[Skill]:
        """The local skills."""
        return self._list_skills()

    def _list_skills(self) -> list[Skill]:
        return list(self._skills.values())

    async def _get_or_fetch_skill(
        self, skill_name: str, invocation_id: str | None = None
    ) -> Skill | None:
        """A local skill, else the registry's (None: neither has it). Registry skills
        are fetched once per invocation (the last few invocations are remembered)."""
        skill = self._skills.get(skill_name)
        if skill is not None or self._registry is None:
            return skill
        if invocation_id is None:
            return await self._registry.get_skill(name=skill_name)
        turn = self._fetched.setdefault(invocation_id, {})
        if skill_name not in turn:
            turn[skill_name] = await self._registry.get_skill(name=skill_name)
        while len(self._fetched) > _CACHED_INVOCATIONS:
            self._fetched.pop(next(iter(self._fetched)))
        return turn[skill_name]

    def _executor_for(self, context: ReadonlyContext | None) -> BaseCodeExecutor | None:
        if self._code_executor is not None:
            return self._code_executor
        ctx = getattr(context, "_invocation_context", None)
        return getattr(getattr(ctx, "agent", None), "code_executor", None)

    def _offers_script_tool(self, context: ReadonlyContext | None) -> bool:
        if self._code_executor is None:
            agent = getattr(getattr(context, "_invocation_context", None), "agent", None)
            if agent is not None and getattr(agent, "code_executor", None) is None:
                return False
        if context is None or self._registry is not None:
            return True
        return any(skill.resources.scripts for skill in self._skills.values())

    def list_active_skills(self, ctx: ReadonlyContext) -> list[str]:
        """The skills ``ctx``'s agent has loaded in this session, in order."""
        return list(ctx.state.get(_activated_key(ctx.agent_name)) or [])

    def _record_activation(self, ctx: ToolContext, skill_name: str) -> None:
        active = self.list_active_skills(ctx)
        if skill_name not in active:
            ctx.state[_activated_key(ctx.agent_name)] = [*active, skill_name]

    async def get_tools(self, readonly_context: ReadonlyContext | None = None) -> list[BaseTool]:
        """The skill tools, then the tools of loaded skills; ``tool_filter`` applies to
        all of them by their own names, then ``tool_name_prefix`` is put before each."""
        tools = self._tools + await self._additional_tools(readonly_context)
        if not self._offers_script_tool(readonly_context):
            tools = [t for t in tools if not isinstance(t, RunSkillScriptTool)]
        tools = [t for t in tools if self._is_tool_selected(t, readonly_context)]
        if self.tool_name_prefix:
            tools = [self._prefixed(t) for t in tools]
        return tools

    async def get_tools_checked(
        self, readonly_context: ReadonlyContext | None = None
    ) -> list[BaseTool]:
        """:meth:`get_tools`: ``tool_filter`` already applies to the base tool names."""
        return await self.get_tools(readonly_context)

    def _prefixed(self, tool: BaseTool) -> BaseTool:
        renamed = copy.copy(tool)
        renamed.name = f"{self.tool_name_prefix}_{tool.name}"
        return renamed

    async def _additional_tools(self, context: ReadonlyContext | None) -> list[BaseTool]:
        if context is None:
            return []
        wanted: dict[str, None] = {}
        for skill_name in self.list_active_skills(context):
            try:
                skill = await self._get_or_fetch_skill(skill_name, context.invocation_id)
            except Exception as exc:  # a registry that is down must not end the turn
                logger.warning("Skipping the tools of skill %r: %s", skill_name, exc)
                continue
            if skill is not None:
                wanted.update(
                    dict.fromkeys(skill.frontmatter.metadata.get("adk_additional_tools") or [])
                )
        if not wanted:
            return []
        candidates = dict(self._provided_tools)
        for toolset in self._provided_toolsets:
            for tool in await toolset.get_tools_checked(context):
                candidates[tool.name] = tool
        taken = {t.name for t in self._tools}
        return [candidates[n] for n in wanted if n in candidates and n not in taken]

    async def process_llm_request(
        self, *, tool_context: ToolContext, llm_request: LlmRequest
    ) -> None:
        """Adds the skill guidance (and, in EAGER mode, the catalog) to the request's
        system instruction, on every model request."""
        selected = {t.name for t in self._tools if self._is_tool_selected(t, tool_context)}
        instructions = [
            build_skill_system_instruction(
                prefix=self.tool_name_prefix,
                allowed_tools=selected,
                script_execution_enabled=self._offers_script_tool(tool_context),
            )
        ]
        if self._discovery_mode is SkillDiscoveryMode.EAGER or names.LIST_SKILLS not in selected:
            instructions.append(prompt.format_skills_as_xml(self._list_skills()))
        if self._registry is not None and names.SEARCH_SKILLS in selected:
            p = f"{self.tool_name_prefix}_" if self.tool_name_prefix else ""
            instructions.append(
                "When the skills above are not enough for the task, look for more in the "
                f"registry with `{p}{names.SEARCH_SKILLS}`."
            )
        llm_request.append_instructions(instructions)

    async def close(self) -> None:
        """Closes the additional toolsets."""
        for toolset in self._provided_toolsets:
            result = toolset.close()
            if inspect.isawaitable(result):
                await result


def _is_sandboxed(executor: object) -> bool:
    from pyadk.code_executors.sandboxed_code_executor import SandboxedCodeExecutor

    return isinstance(executor, SandboxedCodeExecutor)
