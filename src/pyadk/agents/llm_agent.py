"""LlmAgent (= Agent): the configuration of a model-driven agent.

LlmAgent holds configuration only; an LLM flow (:mod:`pyadk.flows`) executes it.
"""

import json
import logging
import operator
import sys
from collections.abc import AsyncGenerator, Awaitable, Callable
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, Field, ValidationError, field_validator

from pyadk import types
from pyadk.agents.base_agent import BaseAgent
from pyadk.agents.invocation_context import InvocationContext
from pyadk.agents.readonly_context import ReadonlyContext
from pyadk.agents.retry_policy import RetryPolicy
from pyadk.code_executors.base_code_executor import BaseCodeExecutor
from pyadk.events.event import Event
from pyadk.models.base_llm import BaseLlm
from pyadk.models.defaults import get_default_model
from pyadk.models.registry import LLMRegistry
from pyadk.planners.base_planner import BasePlanner
from pyadk.utils.callbacks import as_callback_list
from pyadk.utils.deprecation import warn_if_set

if TYPE_CHECKING:
    from pyadk.flows.base_llm_flow import BaseLlmFlow
    from pyadk.tools.base_tool import BaseTool

logger = logging.getLogger(__name__)

InstructionProvider = Callable[[ReadonlyContext], str | Awaitable[str]]
"""A function computing the instruction from the context (its result is not templated)."""
ToolUnion = Any
"""A callable, a BaseTool or a BaseToolset."""
ModelCallback = Callable[..., Any]
ToolCallback = Callable[..., Any]


class LlmAgent(BaseAgent):
    """An agent driven by a language model: instruction, tools, callbacks, sub-agents.

    Model callbacks: ``before_model_callback(callback_context, llm_request)`` may return
    an LlmResponse to skip the model; ``after_model_callback(callback_context,
    llm_response)`` may replace the response; ``on_model_error_callback(callback_context,
    llm_request, error)`` may recover from a model error. Tool callbacks take
    ``(tool, args, tool_context)`` (+ ``tool_response`` / ``error``) and return a dict
    to skip, replace or recover the tool result. Each takes one callable or a list.
    """

    model: str | BaseLlm = ""
    """A model name (resolved by LLMRegistry) or object; empty inherits from ancestors."""
    instruction: str | InstructionProvider = ""
    """The agent's instruction: a template (``{key}``, ``{key?}``, ``{artifact.name}``)
    or a provider function."""
    global_instruction: str | InstructionProvider = ""
    """Instruction for the whole tree; only the root agent's is used."""
    tools: list[ToolUnion] = Field(default_factory=list)
    generate_content_config: types.GenerateContentConfig | None = None
    disallow_transfer_to_parent: bool = False
    disallow_transfer_to_peers: bool = False
    include_contents: Literal["default", "none"] = "default"
    """``none``: the model sees only the current turn, not the session history."""
    input_schema: type[BaseModel] | None = None
    """Arguments the agent takes when used through AgentTool."""
    output_schema: type[BaseModel] | None = None
    """The model's final answer must be JSON matching this model."""
    output_key: str | None = None
    """State key that receives the agent's final answer (text, or dict with a schema)."""
    model_retry: RetryPolicy | None = None
    """Retries failed model calls (before any part of the answer arrived)."""
    model_timeout: float | None = Field(default=None, gt=0)
    """Seconds one model call may take (ModelTimeoutError past it)."""
    tool_retry: RetryPolicy | None = None
    """Retries tool calls that raise a retryable error."""
    tool_timeout: float | None = Field(default=None, gt=0)
    """Seconds one tool call may take (ToolTimeoutError past it)."""
    planner: BasePlanner | None = None
    code_executor: BaseCodeExecutor | None = None
    before_model_callback: ModelCallback | list[ModelCallback] | None = None
    after_model_callback: ModelCallback | list[ModelCallback] | None = None
    on_model_error_callback: ModelCallback | list[ModelCallback] | None = None
    before_tool_callback: ToolCallback | list[ToolCallback] | None = None
    after_tool_callback: ToolCallback | list[ToolCallback] | None = None
    on_tool_error_callback: ToolCallback | list[ToolCallback] | None = None

    # Caches of derived objects (see _Derived), in a slot rather than a pydantic private
    # attribute: a model class with private attributes keeps pydantic's slow attribute
    # lookup (pyadk.utils.attribute_lookup). Copies start with no cache.
    __slots__ = ("_derived",)

    @property
    def _cache(self) -> "_Derived":
        try:
            cache: _Derived = self._derived  # type: ignore[attr-defined]
        except AttributeError:  # a new agent, or a copy
            cache = _Derived()
            object.__setattr__(self, "_derived", cache)
        return cache

    @field_validator("global_instruction")
    @classmethod
    def _warn_global_instruction(cls, value: Any) -> Any:
        return warn_if_set(
            value, "LlmAgent.global_instruction", "GlobalInstructionPlugin (App(plugins=[...]))"
        )

    @field_validator("generate_content_config", mode="before")
    @classmethod
    def _validate_generate_content_config(cls, value: Any) -> Any:
        if value is None:
            return None
        config = types.GenerateContentConfig.model_validate(value)
        if config.tools:
            raise ValueError(
                "All tools must be set via LlmAgent.tools, not generate_content_config."
            )
        if config.system_instruction:
            raise ValueError(
                "System instruction must be set via LlmAgent.instruction, "
                "not generate_content_config."
            )
        if config.response_schema:
            raise ValueError(
                "Response schema must be set via LlmAgent.output_schema, "
                "not generate_content_config."
            )
        return config

    # -- canonical views ------------------------------------------------------------------
    @property
    def canonical_model(self) -> BaseLlm:
        """The model object this agent uses (own, inherited, or the default)."""
        model = self.model
        if isinstance(model, BaseLlm):
            return model
        if model:
            return self._llm_for_name(model)
        ancestor = self.parent_agent
        while ancestor is not None:
            if isinstance(ancestor, LlmAgent) and ancestor.model:
                return ancestor.canonical_model
            ancestor = ancestor.parent_agent
        default = get_default_model()
        if isinstance(default, BaseLlm):
            return default
        if default:
            return self._llm_for_name(default)
        raise ValueError(
            f"No model found for agent {self.name!r}: set model= on it or an ancestor, "
            "or call pyadk.models.set_default_model(...)."
        )

    def _llm_for_name(self, name: str) -> BaseLlm:
        """The registry's model for ``name``, built once per name."""
        cache = self._cache
        if cache.model is None or cache.model_name != name:
            cache.model = LLMRegistry.new_llm(name)
            cache.model_name = name
        return cache.model

    async def canonical_instruction(self, ctx: ReadonlyContext) -> tuple[str, bool]:
        """(instruction text, True when it came from a provider and skips templating)."""
        return await _resolve_instruction(self.instruction, ctx)

    async def canonical_global_instruction(self, ctx: ReadonlyContext) -> tuple[str, bool]:
        """(global instruction text, True when it came from a provider)."""
        return await _resolve_instruction(self.global_instruction, ctx)

    async def canonical_tools(self, ctx: ReadonlyContext | None = None) -> "list[BaseTool]":
        """The agent's tools: callables wrapped, toolsets expanded (on every call)."""
        if not self.tools:
            return []
        source = tuple(self.tools)
        cache = self._cache
        if cache.tools is not None and _same_items(source, cache.tools_source):
            return cache.tools
        from pyadk.tools.base_toolset import BaseToolset

        resolved: list[BaseTool] = []
        has_toolset = False
        for item in self.tools:
            if isinstance(item, BaseToolset):
                has_toolset = True
                resolved.extend(await item.get_tools_checked(ctx))
            else:
                resolved.append(_as_tool(item))
        if not has_toolset:
            cache.tools = resolved
            cache.tools_source = source
        return resolved

    @property
    def canonical_before_model_callbacks(self) -> list[ModelCallback]:
        """``before_model_callback`` as a list."""
        return as_callback_list(self.before_model_callback)

    @property
    def canonical_after_model_callbacks(self) -> list[ModelCallback]:
        """``after_model_callback`` as a list."""
        return as_callback_list(self.after_model_callback)

    @property
    def canonical_on_model_error_callbacks(self) -> list[ModelCallback]:
        """``on_model_error_callback`` as a list."""
        return as_callback_list(self.on_model_error_callback)

    @property
    def canonical_before_tool_callbacks(self) -> list[ToolCallback]:
        """``before_tool_callback`` as a list."""
        return as_callback_list(self.before_tool_callback)

    @property
    def canonical_after_tool_callbacks(self) -> list[ToolCallback]:
        """``after_tool_callback`` as a list."""
        return as_callback_list(self.after_tool_callback)

    @property
    def canonical_on_tool_error_callbacks(self) -> list[ToolCallback]:
        """``on_tool_error_callback`` as a list."""
        return as_callback_list(self.on_tool_error_callback)

    def transfer_targets(self) -> list[BaseAgent]:
        """Agents this agent may transfer to: sub-agents, then parent and peers if allowed."""
        targets: list[BaseAgent] = list(self.sub_agents)
        parent = self.parent_agent
        if isinstance(parent, LlmAgent):
            if not self.disallow_transfer_to_parent:
                targets.append(parent)
            if not self.disallow_transfer_to_peers:
                targets.extend(p for p in parent.sub_agents if p is not self)
        return targets

    # -- execution ------------------------------------------------------------------------
    @property
    def _llm_flow(self) -> "BaseLlmFlow":
        no_transfer = (
            self.disallow_transfer_to_parent
            and self.disallow_transfer_to_peers
            and not self.sub_agents
        )
        key = (no_transfer, self.planner is not None, self.code_executor is not None)
        cache = self._cache
        if cache.flow is None or cache.flow_key != key:
            from pyadk.flows.auto_flow import AutoFlow
            from pyadk.flows.single_flow import SingleFlow

            flow = SingleFlow() if no_transfer else AutoFlow()
            # Planning and code execution add their processors only to the agents that
            # use them: every other agent's steps pay nothing for them.
            if self.planner is not None:
                from pyadk.flows.processors import nl_planning

                nl_planning.install(flow)
            if self.code_executor is not None:
                from pyadk.flows.processors import code_execution

                code_execution.install(flow)
            cache.flow = flow
            cache.flow_key = key
        return cache.flow

    def _run_async_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        """The flow's events (the flow stores the final answer under ``output_key``)."""
        return self._llm_flow.run_async(ctx)

    def _run_live_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        """The live flow's events (see :mod:`pyadk.flows.live_flow`); its streaming tools
        stop with it."""
        from pyadk.flows.live_flow import run_live_flow
        from pyadk.flows.live_streaming_tools import stopping_streaming_tools

        return stopping_streaming_tools(ctx, run_live_flow(self._llm_flow, ctx))

    def _maybe_save_output_to_state(self, event: Event) -> None:
        """Stores the final answer under ``output_key`` (text, or a dict with a schema)."""
        if not self.output_key or event.author != self.name or not event.is_final_response():
            return
        if not event.content or not event.content.parts:
            return
        text = "".join(p.text for p in event.content.parts if p.text and not p.thought)
        if not text and not any(p.text is not None for p in event.content.parts):
            return
        if self.output_schema is None:
            event.actions.state_delta[self.output_key] = text
            return
        try:
            value = self.output_schema.model_validate_json(_strip_code_fence(text))
        except (ValidationError, ValueError) as exc:
            event.error_code = "OUTPUT_SCHEMA_VALIDATION_ERROR"
            event.error_message = (
                f"Agent {self.name!r}: final answer does not match output_schema "
                f"{self.output_schema.__name__}: {exc}"
            )
            logger.warning(event.error_message)
            return
        event.actions.state_delta[self.output_key] = value.model_dump(
            mode="json", exclude_none=True
        )


Agent = LlmAgent
"""Alias of :class:`LlmAgent`."""


async def _resolve_instruction(
    instruction: str | InstructionProvider, ctx: ReadonlyContext
) -> tuple[str, bool]:
    if isinstance(instruction, str):
        return instruction, False
    result = instruction(ctx)
    if isinstance(result, Awaitable):
        result = await result
    return str(result), True


class _Derived:
    """Caches of an LlmAgent, each valid only for the inputs it was computed from (fields
    may be reassigned or mutated after a run: ``agent.model = ...``, ``agent.tools.append``)."""

    __slots__ = ("flow", "flow_key", "model", "model_name", "tools", "tools_source")

    def __init__(self) -> None:
        self.model: BaseLlm | None = None
        self.model_name: str | None = None
        self.tools: list[BaseTool] | None = None
        self.tools_source: tuple[Any, ...] = ()
        self.flow: BaseLlmFlow | None = None
        self.flow_key: tuple[bool, bool, bool] | None = None


def _same_items(a: tuple[Any, ...], b: tuple[Any, ...]) -> bool:
    """True when both hold the very same objects in the same order."""
    return len(a) == len(b) and all(map(operator.is_, a, b))


def _as_tool(item: Any) -> "BaseTool":
    from pyadk.tools.base_tool import BaseTool
    from pyadk.tools.function_tool import FunctionTool

    if isinstance(item, BaseTool):
        return item
    if _is_workflow_node(item):  # google-adk 2.x wraps a node or workflow as a NodeTool
        from pyadk.tools.node_tool import NodeTool

        return NodeTool(item)
    if isinstance(item, BaseAgent):
        raise ValueError(
            f"Agent {item.name!r} cannot be used directly as a tool: make it a sub-agent, "
            "or wrap it in AgentTool."
        )
    if callable(item):
        return FunctionTool(item)
    raise TypeError(f"Unsupported tool {item!r}: expected a callable, BaseTool or BaseToolset.")


def _is_workflow_node(item: Any) -> bool:
    """Whether ``item`` is a graph-workflow node or a Workflow (without importing the
    workflow package when nothing has: then no tool can be one)."""
    nodes = sys.modules.get("pyadk.workflow._base_node")
    if nodes is None:
        return False
    from pyadk.workflow._workflow import Workflow

    return isinstance(item, nodes.BaseNode | Workflow)


def _strip_code_fence(text: str) -> str:
    """JSON text without a surrounding markdown code fence."""
    stripped = text.strip()
    if stripped.startswith("```"):
        stripped = stripped.split("\n", 1)[1] if "\n" in stripped else ""
        if stripped.rstrip().endswith("```"):
            stripped = stripped.rstrip()[:-3]
    return stripped.strip()


def parse_json_object(text: str) -> Any:
    """Parses JSON text that may be wrapped in a markdown code fence."""
    return json.loads(_strip_code_fence(text))
