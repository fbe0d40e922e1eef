"""The agent tree as Graphviz DOT text, with what one event did highlighted.

``GET .../events/{event_id}/graph`` returns it as ``{"dotSrc": ...}`` (google-adk's
route): render it with any Graphviz (``dot -Tsvg``) or a JS port; no Graphviz
is needed here. Agents are ellipses (workflow agents are boxes naming their type,
their steps numbered when the order matters), tools are boxes linked to the agent
that has them; a toolset is one box named after its class (its tools are listed
only when they run). The event's author is highlighted, and for a tool call or
result the edge to that tool, for a transfer the edge to the target agent.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from pyadk.agents.base_agent import BaseAgent
from pyadk.agents.llm_agent import LlmAgent
from pyadk.agents.loop_agent import LoopAgent
from pyadk.agents.sequential_agent import SequentialAgent
from pyadk.events.event import Event
from pyadk.tools.base_tool import BaseTool
from pyadk.tools.base_toolset import BaseToolset

TRANSFER_TOOL = "transfer_to_agent"
HIGHLIGHT = "#0F5223"
"""Fill and edge colour of the highlighted nodes and edges."""


@dataclass
class AgentGraph:
    """Nodes (id -> (label, shape)) and edges ((from, to) -> label) of an agent tree."""

    nodes: dict[str, tuple[str, str]] = field(default_factory=dict)
    edges: dict[tuple[str, str], str] = field(default_factory=dict)
    agents: set[str] = field(default_factory=set)
    marked_nodes: set[str] = field(default_factory=set)
    marked_edges: set[tuple[str, str]] = field(default_factory=set)

    @classmethod
    def of(cls, root: BaseAgent) -> AgentGraph:
        graph = cls()
        graph._add_agent(root)
        return graph

    def _add_agent(self, agent: BaseAgent) -> None:
        self.agents.add(agent.name)
        if isinstance(agent, LlmAgent):
            self.nodes[agent.name] = (agent.name, "ellipse")
            for tool_name in _tool_names(agent.tools):
                self.tool_node(agent.name, tool_name)
        else:
            self.nodes[agent.name] = (f"{agent.name}\n({type(agent).__name__})", "box")
        ordered = isinstance(agent, SequentialAgent | LoopAgent)
        # A graph Workflow's agents are its nodes, not sub-agents.
        for step, sub in enumerate(agent.sub_agents or agent._children(), start=1):
            self._add_agent(sub)
            self.edges[(agent.name, sub.name)] = str(step) if ordered else ""

    def tool_node(self, agent: str, tool: str) -> str:
        """The id of ``agent``'s tool ``tool`` (added, with its edge, if new)."""
        node = f"{agent}/{tool}"
        if node not in self.nodes:
            self.nodes[node] = (tool, "box")
            self.edges[(agent, node)] = ""
        return node

    def mark(self, event: Event) -> None:
        """Highlights the event's author and the tools and agents it called or heard."""
        author = event.author
        if author not in self.agents:
            return  # the user, or an agent no longer in the tree
        self.marked_nodes.add(author)
        for call in event.get_function_calls():
            if call.name == TRANSFER_TOOL:
                self._mark_transfer(author, str((call.args or {}).get("agent_name", "")))
            elif call.name:
                self._mark_tool(author, call.name)
        for response in event.get_function_responses():
            if response.name == TRANSFER_TOOL:
                self._mark_transfer(author, event.actions.transfer_to_agent or "")
            elif response.name:
                self._mark_tool(author, response.name)

    def _mark_tool(self, agent: str, tool: str) -> None:
        node = self.tool_node(agent, tool)
        self.marked_nodes.add(node)
        self.marked_edges.add((agent, node))

    def _mark_transfer(self, agent: str, target: str) -> None:
        if target not in self.agents:
            return
        self.marked_nodes.add(target)
        if (agent, target) not in self.edges:  # to a parent or a peer: drawn for the event
            self.edges[(agent, target)] = "transfer"
        self.marked_edges.add((agent, target))

    def to_dot(self) -> str:
        """The graph as DOT source."""
        lines = [
            "digraph agents {",
            '  graph [rankdir=LR, fontname="Helvetica"];',
            '  node [fontname="Helvetica", fontsize=11];',
            "  edge [arrowsize=0.7];",
        ]
        for node, (label, shape) in self.nodes.items():
            attrs = [f"label={_quote(label)}", f"shape={shape}"]
            style = ["rounded"] if shape == "box" and node in self.agents else []
            if node in self.marked_nodes:
                style += ["filled", "bold"]
                attrs += [f'fillcolor="{HIGHLIGHT}"', 'fontcolor="white"']
            if style:
                attrs.append(f"style={_quote(','.join(style))}")
            lines.append(f"  {_quote(node)} [{', '.join(attrs)}];")
        for (start, end), label in self.edges.items():
            attrs = [f"label={_quote(label)}"] if label else []
            if (start, end) in self.marked_edges:
                attrs += [f'color="{HIGHLIGHT}"', "penwidth=2.5"]
            if label == "transfer":
                attrs.append("style=dashed")
            suffix = f" [{', '.join(attrs)}]" if attrs else ""
            lines.append(f"  {_quote(start)} -> {_quote(end)}{suffix};")
        lines.append("}")
        return "\n".join(lines) + "\n"


def agent_graph_dot(root: BaseAgent, event: Event | None = None) -> str:
    """DOT source of ``root``'s tree, highlighting what ``event`` did (if given)."""
    graph = AgentGraph.of(root)
    if event is not None:
        graph.mark(event)
    return graph.to_dot()


def _tool_names(tools: Iterable[object]) -> Iterator[str]:
    for tool in tools:
        if isinstance(tool, BaseTool):
            yield tool.name
        elif isinstance(tool, BaseToolset):
            yield type(tool).__name__
        else:
            yield str(getattr(tool, "__name__", None) or type(tool).__name__)


def _quote(text: str) -> str:
    """A DOT double-quoted string."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'
