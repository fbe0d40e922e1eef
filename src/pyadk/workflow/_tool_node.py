"""ToolNode: a tool (a ``BaseTool``, e.g. a ``FunctionTool``) as a workflow node."""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from pyadk import types
from pyadk.tools.base_tool import BaseTool
from pyadk.tools.tool_context import ToolContext
from pyadk.utils.callbacks import plugins_then_callbacks
from pyadk.utils.ids import new_uuid4
from pyadk.workflow._base_node import BaseNode
from pyadk.workflow._coercion import content_text
from pyadk.workflow._errors import WorkflowConfigurationError, WorkflowDataError

if TYPE_CHECKING:
    from pyadk.workflow._context import Context


class ToolNode(BaseNode):
    """Runs ``tool`` as a node; built for you when a tool appears in ``edges`` or is
    given to ``ctx.run_node``.

    The node input becomes the tool's arguments: a dict (or pydantic model) as they
    are, None as no arguments, a JSON object text parsed; any other value goes to
    the tool's only parameter (or its only required one). A required argument the
    input lacks is taken from session state of the same name. The tool's result is
    the node's output.

    The tool runs with a :class:`~pyadk.tools.ToolContext` whose state and artifact
    changes are saved with the node's event, between the Runner's plugins'
    ``before_tool_callback`` / ``on_tool_error_callback`` / ``after_tool_callback``
    (agent-level tool callbacks do not apply: no agent owns the node).
    """

    tool: BaseTool
    name: str = ""
    rerun_on_resume: bool = True

    def __init__(self, tool: BaseTool | None = None, **data: Any) -> None:
        if tool is not None:
            data["tool"] = tool
        target = data.get("tool")
        if not isinstance(target, BaseTool):
            raise WorkflowConfigurationError(f"ToolNode needs a BaseTool, got {target!r}.")
        data.setdefault("name", target.name)
        super().__init__(**data)

    async def _run_impl(self, *, ctx: Context, node_input: Any) -> AsyncGenerator[Any, None]:
        tool = self.tool
        args = self._arguments(ctx, node_input)
        ic = ctx._invocation_context
        tool_context = ToolContext(ic, function_call_id=new_uuid4(), event_actions=ctx.actions)
        if await tool.check_require_confirmation(args, tool_context):
            raise WorkflowConfigurationError(
                f"Tool node {self.name!r}: tool {tool.name!r} asks for confirmation, which "
                "pyadk supports for tools called by an agent, not for tools as nodes; give "
                "the tool to an LlmAgent node instead."
            )
        plugin_kwargs = {"tool": tool, "tool_args": args, "tool_context": tool_context}
        plugins = ic.plugin_manager
        result = await plugins_then_callbacks(plugins, "before_tool_callback", plugin_kwargs, None)
        if result is None:
            try:
                result = await tool.run_async(args=args, tool_context=tool_context)
            except Exception as error:
                result = await plugins_then_callbacks(
                    plugins, "on_tool_error_callback", {**plugin_kwargs, "error": error}, None
                )
                if result is None:
                    raise
            _refuse_client_requests(self.name, tool_context)
        altered = await plugins_then_callbacks(
            plugins, "after_tool_callback", {**plugin_kwargs, "result": result}, None
        )
        yield result if altered is None else altered

    def _arguments(self, ctx: Context, node_input: Any) -> dict[str, Any]:
        """The tool's arguments for ``node_input`` (see the class docstring)."""
        value = node_input
        if isinstance(value, types.Content):
            value = content_text(value)
        if isinstance(value, BaseModel):
            value = value.model_dump()
        elif isinstance(value, str):
            value = value.strip() or None
            if value is not None:
                try:
                    parsed = json.loads(value)
                except json.JSONDecodeError:
                    parsed = None
                if isinstance(parsed, dict):
                    value = parsed
        names, required = _parameters(self.tool)
        if value is None:
            args: dict[str, Any] = {}
        elif isinstance(value, dict):
            args = dict(value)
        elif len(names) == 1:
            args = {names[0]: value}
        elif len(required) == 1:
            args = {required[0]: value}
        else:
            raise WorkflowDataError(
                f"Tool node {self.name!r}: the input must be a dict of the tool's arguments "
                f"or None, got {type(value).__name__}: {value!r}."
            )
        for name in required:
            if name not in args and name in ctx.state:
                args[name] = ctx.state[name]
        return args


def _parameters(tool: BaseTool) -> tuple[list[str], list[str]]:
    """The names of ``tool``'s parameters, and of its required ones."""
    declaration = tool._get_declaration()
    if declaration is None:
        return [], []
    schema: Any = declaration.parameters_json_schema
    if isinstance(schema, dict):
        return list(schema.get("properties") or ()), list(schema.get("required") or ())
    if declaration.parameters is not None:
        parameters = declaration.parameters
        return list(parameters.properties or ()), list(parameters.required or ())
    return [], []


def _refuse_client_requests(name: str, tool_context: ToolContext) -> None:
    """A tool node cannot pause for a credential or an approval the tool asked for."""
    actions = tool_context.actions
    if actions.requested_auth_configs or actions.requested_tool_confirmations:
        asked = "a credential" if actions.requested_auth_configs else "a confirmation"
        raise WorkflowConfigurationError(
            f"Tool node {name!r} asked the client for {asked}: not supported for tools as "
            "nodes in pyadk; give the tool to an LlmAgent node instead."
        )
