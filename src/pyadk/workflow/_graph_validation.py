"""Checks a workflow graph when the workflow is built."""

from __future__ import annotations

from collections import Counter

from pyadk.workflow._base_node import START, BaseNode
from pyadk.workflow._errors import GraphValidationError
from pyadk.workflow._graph import DEFAULT_ROUTE, Edge, Graph


def build_graph(edges: list[Edge]) -> Graph:
    """A validated graph of ``edges``; raises :class:`GraphValidationError`."""
    distinct: dict[int, BaseNode] = {}
    for edge in edges:
        for node in (edge.from_node, edge.to_node):
            distinct.setdefault(id(node), node)
    counts = Counter(node.name for node in distinct.values())
    duplicates = sorted(name for name, count in counts.items() if count > 1)
    if duplicates:
        raise GraphValidationError(
            f"Duplicate node names: {duplicates}. Distinct nodes need distinct names; to "
            "reuse a node, pass the same object."
        )
    nodes = {node.name: node for node in distinct.values()}
    if START.name not in nodes:
        raise GraphValidationError(
            "The graph has no START: begin a chain with START, e.g. (START, first_node)."
        )
    _check_edges(edges)
    _check_reachable(edges, set(nodes))
    _check_unconditional_cycles(edges, set(nodes))
    sources = {edge.from_node.name for edge in edges}
    terminal = {name for name in nodes if name != START.name and name not in sources}
    del nodes[START.name]
    return Graph(edges=edges, nodes=nodes, terminal_names=terminal)


def _check_edges(edges: list[Edge]) -> None:
    seen: dict[tuple[str, str], set[object]] = {}
    for edge in edges:
        source, target = edge.from_node.name, edge.to_node.name
        if target == START.name:
            raise GraphValidationError(f"START cannot have incoming edges (from {source!r}).")
        if source == START.name and edge.route is not None:
            raise GraphValidationError(
                f"Edges from START cannot have a route (edge to {target!r} has {edge.route!r})."
            )
        if isinstance(edge.route, list) and DEFAULT_ROUTE in edge.route:
            raise GraphValidationError(
                f"DEFAULT_ROUTE cannot be listed with other routes (edge {source} -> "
                f"{target}); give it its own edge."
            )
        routes: set[object] = set(edge.route) if isinstance(edge.route, list) else {edge.route}
        known = seen.setdefault((source, target), set())
        if known and (None in known or None in routes or known & routes):
            raise GraphValidationError(f"Duplicate edge: {source} -> {target}.")
        known.update(routes)


def _check_reachable(edges: list[Edge], names: set[str]) -> None:
    following: dict[str, set[str]] = {name: set() for name in names}
    for edge in edges:
        following[edge.from_node.name].add(edge.to_node.name)
    reached: set[str] = set()
    stack = [START.name]
    while stack:
        name = stack.pop()
        if name not in reached:
            reached.add(name)
            stack.extend(following[name] - reached)
    unreachable = sorted(names - reached)
    if unreachable:
        raise GraphValidationError(f"Nodes not reachable from START: {unreachable}.")


def _check_unconditional_cycles(edges: list[Edge], names: set[str]) -> None:
    following: dict[str, list[str]] = {name: [] for name in names}
    for edge in edges:
        if edge.route is None:
            following[edge.from_node.name].append(edge.to_node.name)
    finished: set[str] = set()

    def visit(name: str, path: list[str]) -> None:
        path.append(name)
        for nxt in following[name]:
            if nxt in path:
                cycle = [*path[path.index(nxt) :], nxt]
                raise GraphValidationError(
                    f"Cycle without a routed edge: {' -> '.join(cycle)}. A loop needs a "
                    "routed edge to end."
                )
            if nxt not in finished:
                visit(nxt, path)
        path.pop()
        finished.add(name)

    for name in sorted(names):
        if name not in finished:
            visit(name, [])
