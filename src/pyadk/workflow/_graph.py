"""Edge, DEFAULT_ROUTE and Graph: the nodes of a workflow and how they connect."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict

from pyadk.workflow._base_node import BaseNode
from pyadk.workflow._context import RouteValue

logger = logging.getLogger(__name__)

DEFAULT_ROUTE = "__DEFAULT__"
"""Route of an edge taken when no other routed edge of its node matched."""


class Edge(BaseModel):
    """An edge from ``from_node`` to ``to_node``.

    Without ``route`` the edge is always taken once ``from_node`` finishes. With a
    route (or a list of routes) it is taken when the node's ``ctx.route`` matches
    one of them; ``DEFAULT_ROUTE`` edges are taken when no routed edge matched.
    Nodes may be given as anything a workflow accepts as a node (a node, an
    agent, a function, ``START``).
    """

    model_config = ConfigDict(arbitrary_types_allowed=True, extra="forbid")

    from_node: Any
    to_node: Any
    route: RouteValue | list[RouteValue] | None = None


@dataclass
class Graph:
    """The parsed, validated graph of a workflow (nodes keyed by name)."""

    edges: list[Edge]
    nodes: dict[str, BaseNode] = field(default_factory=dict)
    terminal_names: set[str] = field(default_factory=set)

    def successors(self, name: str, route: Any) -> list[str]:
        """The nodes to trigger after ``name`` finished with ``route``."""
        chosen: list[str] = []
        defaults: list[str] = []
        routed = False
        matched = False
        wanted = set(route) if isinstance(route, list) else {route}
        for edge in self.edges:
            if edge.from_node.name != name:
                continue
            if edge.route is None:
                chosen.append(edge.to_node.name)
                continue
            routed = True
            if edge.route == DEFAULT_ROUTE:
                defaults.append(edge.to_node.name)
                continue
            routes = set(edge.route) if isinstance(edge.route, list) else {edge.route}
            if route is not None and routes & wanted:
                chosen.append(edge.to_node.name)
                matched = True
        if not matched:
            chosen.extend(defaults)
        if routed and not chosen:
            logger.warning(
                "Node %r has routed edges but none matches route %r: this branch ends.",
                name,
                route,
            )
        return chosen

    def predecessors(self, name: str) -> set[str]:
        """Names of the nodes with an edge into ``name``."""
        return {e.from_node.name for e in self.edges if e.to_node.name == name}
