"""Turning a workflow's ``edges`` list (chains, fan-out tuples, route dicts) into edges."""

from __future__ import annotations

import itertools
from typing import Any

from pyadk.workflow._base_node import START, BaseNode, is_start
from pyadk.workflow._errors import WorkflowConfigurationError
from pyadk.workflow._graph import Edge


def build_node(node_like: Any) -> BaseNode:
    """The node for ``node_like``: a node as is, an agent, tool or function wrapped."""
    from pyadk.agents.base_agent import BaseAgent
    from pyadk.tools.base_tool import BaseTool
    from pyadk.workflow._agent_node import AgentNode
    from pyadk.workflow._function_node import FunctionNode
    from pyadk.workflow._tool_node import ToolNode

    if is_start(node_like):
        return START
    if isinstance(node_like, BaseNode):
        return _as_workers(node_like)
    if isinstance(node_like, BaseAgent):
        return AgentNode(agent=node_like)
    if isinstance(node_like, BaseTool):
        return ToolNode(node_like)
    if callable(node_like) and not isinstance(node_like, type):
        return FunctionNode(node_like)
    raise WorkflowConfigurationError(
        f"Not a workflow node: {node_like!r} (type {type(node_like).__name__}). Use a "
        "node, an agent, a tool, a function or START."
    )


def _as_workers(built: BaseNode) -> BaseNode:
    """A :class:`Node` with ``parallel_worker=True``, wrapped in a ParallelWorker."""
    from pyadk.workflow._node import Node
    from pyadk.workflow._parallel_worker import ParallelWorker

    if isinstance(built, Node) and built.parallel_worker:
        inner = built.model_copy(update={"parallel_worker": False, "max_parallel_workers": None})
        return ParallelWorker(node=inner, max_parallel_workers=built.max_parallel_workers)
    return built


class _Builder:
    """Builds each node-like once: the same object is the same node."""

    def __init__(self) -> None:
        self._built: dict[int, BaseNode] = {}
        self._keep: list[Any] = []  # keeps ids stable while parsing

    def node(self, node_like: Any) -> BaseNode:
        if is_start(node_like):
            return START
        key = id(node_like)
        if key not in self._built:
            self._built[key] = build_node(node_like)
            self._keep.append(node_like)
        return self._built[key]


def _flatten(element: Any) -> list[Any]:
    if isinstance(element, dict):
        nodes: list[Any] = []
        for target in element.values():
            nodes.extend(target if isinstance(target, tuple) else [target])
        return nodes
    if isinstance(element, tuple):
        return list(element)
    return [element]


def _routed(source: Any, routes: dict[Any, Any], build: _Builder) -> list[Edge]:
    if isinstance(source, dict):
        raise WorkflowConfigurationError(
            "Two routing dicts follow each other in a chain: split them into two chains."
        )
    if not routes:
        raise WorkflowConfigurationError("A routing dict must map at least one route to a node.")
    edges: list[Edge] = []
    for route, target in routes.items():
        if not isinstance(route, (bool, int, str)):
            raise WorkflowConfigurationError(
                f"Invalid route {route!r} (type {type(route).__name__}): routes are str, int "
                "or bool."
            )
        for from_like in _flatten(source):
            for to_like in _flatten(target):
                edges.append(
                    Edge(from_node=build.node(from_like), to_node=build.node(to_like), route=route)
                )
    return edges


def parse_edges(items: list[Any]) -> list[Edge]:
    """The edges declared by ``items``: :class:`Edge` objects and chains.

    A chain is a tuple ``(a, b, c)`` (edges a->b, b->c); an element may be a tuple
    of nodes (fan-out / fan-in: every pair is joined) or a dict ``{route: node or
    tuple of nodes}`` (routed edges from the element before it).
    """
    build = _Builder()
    edges: list[Edge] = []
    for item in items:
        if isinstance(item, Edge):
            edges.append(
                Edge(
                    from_node=build.node(item.from_node),
                    to_node=build.node(item.to_node),
                    route=item.route,
                )
            )
        elif isinstance(item, tuple):
            if len(item) < 2:
                raise WorkflowConfigurationError(
                    f"A chain needs at least two elements, got {item!r}."
                )
            for source, target in itertools.pairwise(item):
                if isinstance(target, dict):
                    edges.extend(_routed(source, target, build))
                    continue
                for from_like in _flatten(source):
                    for to_like in _flatten(target):
                        edges.append(
                            Edge(from_node=build.node(from_like), to_node=build.node(to_like))
                        )
        else:
            raise WorkflowConfigurationError(
                f"Invalid edge item {item!r} (type {type(item).__name__}): use an Edge or a "
                "tuple chain such as (START, a, b)."
            )
    return edges
