"""Graph workflows: nodes (functions, agents, workflows) joined by edges.

Mirrors google-adk 2.x's ``google.adk.workflow`` (see docs/graph-workflows.md
for what matches and what differs).
"""

from pyadk.workflow._agent_node import AgentNode
from pyadk.workflow._base_node import START, BaseNode
from pyadk.workflow._context import Context, RouteValue
from pyadk.workflow._errors import (
    DynamicNodeFailError,
    GraphValidationError,
    InputAnswerError,
    NodeTimeoutError,
    WorkflowConfigurationError,
    WorkflowDataError,
)
from pyadk.workflow._function_node import FunctionNode
from pyadk.workflow._graph import DEFAULT_ROUTE, Edge, Graph
from pyadk.workflow._join_node import JoinNode
from pyadk.workflow._node import Node, node
from pyadk.workflow._node_events import has_output, node_output, node_path, node_route
from pyadk.workflow._parallel_worker import ParallelWorker
from pyadk.workflow._request_input import REQUEST_INPUT_FUNCTION_CALL_NAME, RequestInput
from pyadk.workflow._retry_config import RetryConfig
from pyadk.workflow._tool_node import ToolNode
from pyadk.workflow._tool_runs import NodePausedInToolError
from pyadk.workflow._workflow import Workflow

__all__ = [
    "DEFAULT_ROUTE",
    "REQUEST_INPUT_FUNCTION_CALL_NAME",
    "START",
    "AgentNode",
    "BaseNode",
    "Context",
    "DynamicNodeFailError",
    "Edge",
    "FunctionNode",
    "Graph",
    "GraphValidationError",
    "InputAnswerError",
    "JoinNode",
    "Node",
    "NodePausedInToolError",
    "NodeTimeoutError",
    "ParallelWorker",
    "RequestInput",
    "RetryConfig",
    "RouteValue",
    "ToolNode",
    "Workflow",
    "WorkflowConfigurationError",
    "WorkflowDataError",
    "has_output",
    "node",
    "node_output",
    "node_path",
    "node_route",
]
