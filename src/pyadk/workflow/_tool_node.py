"""ToolNode: a tool (a ``BaseTool``, e.g. a ``FunctionTool``) as a workflow node."""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from pyadk import types
from pyadk.events.tool_confirmation import ToolConfirmation
from pyadk.tools.base_tool import BaseTool
from pyadk.tools.tool_context import ToolContext
from pyadk.utils.callbacks import plugins_then_callbacks
from pyadk.utils.ids import new_uuid4
from pyadk.workflow._base_node import BaseNode
from pyadk.workflow._coercion import content_text
from pyadk.workflow._errors import WorkflowConfigurationError, WorkflowDataError
from pyadk.workflow._node_run import NodeWaiting
from pyadk.workflow._request_input import RequestInput
from pyadk.workflow._tool_node_auth import credential_request, store_credentials

if TYPE_CHECKING:
    from pyadk.workflow._context import Context

CONFIRMATION_PREFIX = "wf_tool_confirmation:"
REJECTED = "This tool call is rejected."


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

    A call that needs approval (``require_confirmation``, or the tool calling
    ``tool_context.request_confirmation``) asks the client with a ``RequestInput``
    (payload: ``tool_name``, ``args``, ``confirmation_payload``; the answer: a
    ``ToolConfirmation`` dict such as ``{"confirmed": true}``); the node then runs
    again with ``tool_context.tool_confirmation`` set, and a rejected call outputs
    ``{"error": "This tool call is rejected."}``.

    A tool that asks for the end user's credential (``tool_context.request_credential``)
    makes the node wait on an ``adk_request_credential`` call, as an agent's tool call
    does; once the client answers, the credential is kept in ``temp:`` state for that
    turn only and the node runs again (``tool_context.get_auth_response`` returns it).
    The answer is never written into a pause record: should the node wait again (the
    tool then asks for approval), a later turn asks for the credential again.
    ``tool_context.run_node`` runs a node as a dynamic node of this node.
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

    def _check_reruns(self, asked: str) -> None:
        """A node that asks the client must run again on the answer (else the answer
        would become its output and the tool would never run)."""
        if not self.rerun_on_resume:
            raise WorkflowConfigurationError(
                f"Tool node {self.name!r} asked for {asked} but has rerun_on_resume=False: "
                "its tool must run again once the client answers."
            )

    async def _run_impl(self, *, ctx: Context, node_input: Any) -> AsyncGenerator[Any, None]:
        tool = self.tool
        args = self._arguments(ctx, node_input)
        ic = ctx._invocation_context
        call_id = new_uuid4()
        tool_context = ToolContext(ic, function_call_id=call_id, event_actions=ctx.actions)
        tool_context.tool_confirmation = _confirmation(ctx)
        tool_context._node_ctx = ctx  # tool_context.run_node: a dynamic node of this node
        store_credentials(ctx)  # the user's answer to this node's credential request
        plugin_kwargs = {"tool": tool, "tool_args": args, "tool_context": tool_context}
        plugins = ic.plugin_manager
        result = await plugins_then_callbacks(plugins, "before_tool_callback", plugin_kwargs, None)
        if result is None:
            confirmation = tool_context.tool_confirmation
            if confirmation is None and await tool.check_require_confirmation(args, tool_context):
                self._check_reruns("approval")
                yield _ask_confirmation(tool.name, args, f"Approve or reject {tool.name}().")
                return
            if confirmation is not None and not confirmation.confirmed:
                result = {"error": REJECTED}
            else:
                try:
                    result = await tool.run_async(args=args, tool_context=tool_context)
                except Exception as error:
                    # The failure is the call's result: what it asked the client for is
                    # dropped.
                    ctx.actions.requested_tool_confirmations.pop(call_id, None)
                    ctx.actions.requested_auth_configs.pop(call_id, None)
                    result = await plugins_then_callbacks(
                        plugins, "on_tool_error_callback", {**plugin_kwargs, "error": error}, None
                    )
                    if result is None:
                        raise
                asked = ctx.actions.requested_tool_confirmations.pop(call_id, None)
                if asked is not None:  # the tool asked for approval itself
                    self._check_reruns("approval")
                    yield _ask_confirmation(tool.name, args, asked.hint, asked.payload)
                    return
                requested = ctx.actions.requested_auth_configs.pop(call_id, None)
                if requested is not None:  # the tool asked for a credential: wait for it
                    self._check_reruns("a credential")
                    yield credential_request(ctx, call_id, requested)
                    yield NodeWaiting()
                    return
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


def _confirmation(ctx: Context) -> ToolConfirmation | None:
    """The client's answer to this node's request for approval (None: not asked yet)."""
    for interrupt_id, answer in ctx.resume_inputs.items():
        if interrupt_id.startswith(CONFIRMATION_PREFIX):
            if isinstance(answer, ToolConfirmation):
                return answer
            if not isinstance(answer, dict):
                raise WorkflowDataError(
                    f"A tool confirmation is a JSON object, got {type(answer).__name__}: "
                    f"{answer!r}."
                )
            try:
                return ToolConfirmation.from_response_dict(
                    {k: v for k, v in answer.items() if v is not None}
                )
            except ValueError as error:
                raise WorkflowDataError(f"Invalid tool confirmation: {answer!r}") from error
    return None


def _ask_confirmation(
    tool_name: str, args: dict[str, Any], hint: str, payload: Any = None
) -> RequestInput:
    """The request asking the client to approve (or reject) the call."""
    shown: dict[str, Any] = {"tool_name": tool_name, "args": args}
    if payload is not None:
        shown["confirmation_payload"] = payload
    return RequestInput(
        interrupt_id=CONFIRMATION_PREFIX + new_uuid4(),
        message=hint or f"Approve or reject {tool_name}().",
        payload=shown,
        response_schema=dict,
    )
