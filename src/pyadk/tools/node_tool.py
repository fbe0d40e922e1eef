"""NodeTool: a workflow node (or a whole ``Workflow``) called like a function."""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING, Any

from pydantic import TypeAdapter, ValidationError

from pyadk import types
from pyadk.tools.base_tool import BaseTool

if TYPE_CHECKING:
    from pyadk.tools.tool_context import ToolContext
    from pyadk.workflow._base_node import BaseNode

_REQUEST = "request"
_UNRESOLVED = object()
"""A node whose input has no schema NodeTool can tell."""


class NodeTool(BaseTool):
    """Runs ``node`` (a :class:`~pyadk.workflow.Workflow` or another workflow node) as a
    tool of an agent; returns the node's output (a workflow's: its terminal node's).

    The parameters the model sees come from the input of the node (for a workflow: of
    the nodes after ``START``, which must agree): a function node's ``node_input``
    annotation, a tool node's parameters, an ``LlmAgent``'s ``input_schema`` (a
    ``request`` string without one). An input that is not an object is passed as the
    single parameter ``request``. ``input_schema`` (a type or a JSON schema dict; a
    pyadk addition) gives the schema when the node cannot tell it. Arguments that do
    not fit give the model an ``{"error": ...}`` result naming the problem, and the
    node does not run.

    The node runs with the calling agent's invocation, under the path
    ``<agent>@1/<node>@<call id>`` and in the branch ``<agent's branch>.<tool>@<call
    id>``: its events (and those of the nodes inside it) are stored in the session as
    they come, and, as progress events of the call (``stream_events``, on by default),
    sent to the client while it runs. A node that fails raises its own error (the
    agent's ``on_tool_error_callback`` sees it).

    A node that waits for the client (a ``RequestInput``, a tool node's approval or
    credential, an agent node's approval or long-running call) pauses the agent, as in
    google-adk: the call gets no result, its requests reach the client after the
    step's results, and the agent waits. The client's answer to one of them runs the
    call again: the node goes on from its pause (nodes that had finished are not run
    again) and its output is the call's result, which the model then gets.
    """

    def __init__(
        self,
        node: Any,
        name: str | None = None,
        description: str | None = None,
        *,
        input_schema: Any = None,
        stream_events: bool = True,
    ) -> None:
        described = getattr(node, "description", "") or ""
        node = _as_node(node)
        schema = input_schema if input_schema is not None else _input_schema(node)
        if schema is _UNRESOLVED:
            raise ValueError(
                f"Node {node.name!r} has no input schema NodeTool can tell: annotate the "
                "node_input parameter of its first node(s), or pass input_schema=."
            )
        self.node = node
        self.input_schema: Any = schema
        """The node input's type or JSON schema (None: the node takes no input)."""
        self._json_schema = _to_json_schema(schema) if schema is not None else None
        self._wrapped = self._json_schema is not None and self._json_schema.get("type") != (
            "object"
        )
        super().__init__(
            name=name or node.name,
            description=description or described or f"Runs the node {node.name}.",
            streams_progress=stream_events,
        )

    def _get_declaration(self) -> types.FunctionDeclaration | None:
        schema = self._json_schema
        if schema is None:
            parameters: dict[str, Any] = {"type": "object", "properties": {}}
        elif self._wrapped:
            parameters = {
                "type": "object",
                "properties": {_REQUEST: schema},
                "required": [_REQUEST],
            }
        else:
            parameters = schema
        return types.FunctionDeclaration(
            name=self.name, description=self.description, parameters_json_schema=parameters
        )

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        from pyadk.workflow._errors import DynamicNodeFailError
        from pyadk.workflow._tool_runs import run_node_from_tool

        try:
            node_input = self._node_input(args)
        except (ValidationError, ValueError) as error:
            return {
                "error": f"Invalid arguments for tool `{self.name}`: {error}\nCall it "
                "again with arguments that fit its parameters."
            }
        call_id = tool_context.function_call_id
        segment = f"{self.name}@{call_id}" if call_id else self.name
        base = tool_context._invocation_context.branch
        try:
            return await run_node_from_tool(
                tool_context,
                self.node,
                node_input,
                run_id=call_id or None,
                override_branch=f"{base}.{segment}" if base else segment,
                pausable=True,
            )
        except DynamicNodeFailError as failure:  # the node's own error, for the callbacks
            raise failure.error from failure

    def _node_input(self, args: dict[str, Any]) -> Any:
        """The node input for the model's ``args`` (ValueError or ValidationError when
        they do not fit the schema)."""
        schema = self.input_schema
        if schema is None:
            return None
        if self._wrapped:
            if _REQUEST not in args:
                raise ValueError(f"missing required argument {_REQUEST!r}.")
            value = args[_REQUEST]
        else:
            value = dict(args)
        if isinstance(schema, dict):
            return _checked(value, schema)
        return TypeAdapter(schema).validate_python(value)


def _as_node(node: Any) -> BaseNode:
    """``node`` as a workflow node (a Workflow as an agent node); ValueError for an
    agent, which is a sub-agent (or an AgentTool), not a NodeTool."""
    from pyadk.agents.base_agent import BaseAgent
    from pyadk.workflow._base_node import BaseNode
    from pyadk.workflow._function_node import FunctionNode
    from pyadk.workflow._graph_parser import build_node
    from pyadk.workflow._workflow import Workflow

    if isinstance(node, BaseAgent) and not isinstance(node, Workflow):
        raise ValueError(
            f"Agent {node.name!r} cannot be wrapped as a NodeTool: make it a sub-agent, or "
            "use AgentTool."
        )
    if not isinstance(node, BaseNode | Workflow):
        raise ValueError(
            f"NodeTool wraps a workflow node or a Workflow, got {type(node).__name__}: {node!r}."
        )
    built = build_node(node)
    if isinstance(built, FunctionNode) and _takes_arguments(built):
        from pyadk.tools.function_tool import FunctionTool
        from pyadk.workflow._tool_node import ToolNode

        if built.auth_config is not None:
            raise ValueError(
                f"Function node {built.name!r} has auth_config but no context parameter to "
                "read the credential with: give it a `ctx: Context` parameter (its other "
                "parameters then come from state), or use the tool through a Workflow."
            )
        # Its parameters are the tool's arguments (not state values), as in google-adk;
        # its approval, retries and timeout stay.
        tool = FunctionTool(built.func, require_confirmation=built.require_confirmation)
        return ToolNode(
            tool,
            name=built.name,
            description=built.description,
            retry_config=built.retry_config,
            timeout=built.timeout,
        )
    return built


def _takes_arguments(node: Any) -> bool:
    """A function node without ``node_input`` nor a context parameter."""
    parameters = inspect.signature(node.func).parameters
    return "node_input" not in parameters and node._context_param is None and bool(parameters)


def _input_schema(node: BaseNode) -> Any:
    """The type or JSON schema of ``node``'s input; None when it takes none,
    ``_UNRESOLVED`` when it cannot tell."""
    from pyadk.agents.llm_agent import LlmAgent
    from pyadk.workflow._agent_node import AgentNode
    from pyadk.workflow._function_node import FunctionNode
    from pyadk.workflow._parallel_worker import ParallelWorker
    from pyadk.workflow._tool_node import ToolNode
    from pyadk.workflow._workflow import Workflow

    if isinstance(node, FunctionNode):
        if "node_input" not in node._signature.parameters:
            return None
        hint = node._hints.get("node_input")
        return _UNRESOLVED if hint in (None, Any, object) else hint
    if isinstance(node, ToolNode):
        declaration = node.tool._get_declaration()
        if declaration is None:
            return None
        if isinstance(declaration.parameters_json_schema, dict):
            return declaration.parameters_json_schema
        if declaration.parameters is not None:
            return _lowercase(declaration.parameters.to_json_schema())
        return None
    if isinstance(node, ParallelWorker):
        inner = _input_schema(node.node)
        if inner is _UNRESOLVED or inner is None:
            return _UNRESOLVED
        return {"type": "array", "items": inner} if isinstance(inner, dict) else list[inner]  # type: ignore[valid-type]
    if isinstance(node, AgentNode):
        agent = node.agent
        if isinstance(agent, Workflow):
            return _workflow_schema(agent)
        if isinstance(agent, LlmAgent) and agent.input_schema is not None:
            return agent.input_schema
        return str
    return _UNRESOLVED


def _workflow_schema(workflow: Any) -> Any:
    """The schema the nodes after START agree on (joins excluded)."""
    from pyadk.workflow._base_node import START

    graph = workflow.graph
    if graph is None:
        return None
    entries: dict[str, Any] = {}
    for edge in graph.edges:
        if edge.from_node is START and not edge.to_node._requires_all_predecessors:
            entries[edge.to_node.name] = edge.to_node
    schemas = [_input_schema(n) for n in entries.values()]
    if not schemas or any(s is _UNRESOLVED for s in schemas):
        return _UNRESOLVED
    given = [s for s in schemas if s is not None]
    if not given:
        return None
    if any(s != given[0] for s in given[1:]):
        return _UNRESOLVED
    return given[0]


def _to_json_schema(schema: Any) -> dict[str, Any]:
    if isinstance(schema, dict):
        return schema
    if isinstance(schema, types.Schema):
        return _lowercase(schema.to_json_schema())
    result: dict[str, Any] = TypeAdapter(schema).json_schema()
    return result


def _lowercase(schema: Any) -> Any:
    """A JSON schema with its ``type`` names in lower case (``OBJECT`` -> ``object``)."""
    if isinstance(schema, dict):
        return {
            k: v.lower() if k == "type" and isinstance(v, str) else _lowercase(v)
            for k, v in schema.items()
        }
    if isinstance(schema, list):
        return [_lowercase(v) for v in schema]
    return schema


def _checked(value: Any, schema: dict[str, Any]) -> Any:
    """``value`` checked against a JSON schema's top level: an object with its required
    properties (the tool behind the node checks the rest)."""
    if schema.get("type") == "object":
        if not isinstance(value, dict):
            raise ValueError(f"expected an object, got {type(value).__name__}.")
        missing = [n for n in schema.get("required") or () if n not in value]
        if missing:
            raise ValueError(f"missing required argument(s) {', '.join(map(repr, missing))}.")
    return value
