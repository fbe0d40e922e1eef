"""GET .../events/{event_id}/graph (google-adk's event graph): DOT source of the agent
tree with what the event did highlighted."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from server_support import AGENTS_DIR, LiveServer, run_body

from pyadk import types
from pyadk.agents import LlmAgent, SequentialAgent
from pyadk.events.event import Event
from pyadk.events.event_actions import EventActions
from pyadk.server import create_app
from pyadk.server.agent_graph import HIGHLIGHT, agent_graph_dot
from pyadk.tools.base_tool import BaseTool
from pyadk.tools.base_toolset import BaseToolset
from pyadk.tools.function_tool import FunctionTool

_QUOTED = r'"((?:[^"\\]|\\.)*)"'
_STATEMENT = re.compile(rf"^\s*{_QUOTED}(?:\s*->\s*{_QUOTED})?(?:\s*\[(.*)\])?;$")
_ATTRIBUTE = re.compile(rf"(\w+)=(?:{_QUOTED}|([^,\s]+))")


@dataclass
class Dot:
    """The nodes and edges of a DOT text, with their attributes."""

    nodes: dict[str, dict[str, str]]
    edges: dict[tuple[str, str], dict[str, str]]

    @classmethod
    def parse(cls, text: str) -> Dot:
        lines = text.strip().splitlines()
        assert lines[0] == "digraph agents {" and lines[-1] == "}"
        nodes: dict[str, dict[str, str]] = {}
        edges: dict[tuple[str, str], dict[str, str]] = {}
        for line in lines[1:-1]:
            if line.strip().startswith(("graph ", "node ", "edge ")):
                continue
            match = _STATEMENT.match(line)
            assert match is not None, f"not a DOT statement: {line!r}"
            start, end, attributes = match.groups()
            attrs = {
                m[1]: m[2] if m[2] is not None else m[3]
                for m in _ATTRIBUTE.finditer(attributes or "")
            }
            if end is None:
                nodes[start] = attrs
            else:
                assert start in nodes and end in nodes, f"edge to an undeclared node: {line}"
                edges[(start, end)] = attrs
        return cls(nodes, edges)

    def marked(self) -> tuple[set[str], set[tuple[str, str]]]:
        nodes = {n for n, a in self.nodes.items() if a.get("fillcolor") == HIGHLIGHT}
        edges = {e for e, a in self.edges.items() if a.get("color") == HIGHLIGHT}
        return nodes, edges


@pytest.fixture
def client(serve: Callable[[Any], LiveServer]) -> httpx.Client:
    client = serve(create_app(AGENTS_DIR)).client()
    client.post("/apps/team/users/alice/sessions/s1")
    assert client.post("/run", json=run_body("team", "alice", "s1", "x = 1")).status_code == 200
    return client


def graph(client: httpx.Client, event_id: str) -> Dot:
    response = client.get(f"/apps/team/users/alice/sessions/s1/events/{event_id}/graph")
    assert response.status_code == 200, response.text
    assert list(response.json()) == ["dotSrc"]
    return Dot.parse(response.json()["dotSrc"])


def test_graph_of_the_app_highlights_what_each_event_did(client: httpx.Client) -> None:
    events = client.get("/apps/team/users/alice/sessions/s1").json()["events"]
    user, transfer_call, transfer_result, tool_call, tool_result, answer = events

    tree = graph(client, user["id"])
    assert tree.nodes == {
        "orchestrator": {"label": "orchestrator", "shape": "ellipse"},
        "code_reviewer": {"label": "code_reviewer", "shape": "ellipse"},
        "code_reviewer/review_code": {"label": "review_code", "shape": "box"},
    }
    assert set(tree.edges) == {
        ("orchestrator", "code_reviewer"),
        ("code_reviewer", "code_reviewer/review_code"),
    }
    assert tree.marked() == (set(), set())  # the user is not in the agent tree
    assert graph(client, transfer_call["id"]).marked() == (
        {"orchestrator", "code_reviewer"},
        {("orchestrator", "code_reviewer")},
    )
    assert (
        graph(client, transfer_result["id"]).marked() == graph(client, transfer_call["id"]).marked()
    )
    tool_edge = ("code_reviewer", "code_reviewer/review_code")
    assert graph(client, tool_call["id"]).marked() == (set(tool_edge), {tool_edge})
    assert graph(client, tool_result["id"]).marked() == (set(tool_edge), {tool_edge})
    assert graph(client, answer["id"]).marked() == ({"code_reviewer"}, set())


def test_unknown_event_session_or_app_is_404(client: httpx.Client) -> None:
    base = "/apps/team/users/alice/sessions"
    event = client.get(f"{base}/s1/events/nope/graph")
    session = client.get(f"{base}/missing/events/nope/graph")
    app = client.get("/apps/nope/users/alice/sessions/s1/events/nope/graph")

    assert (event.status_code, event.json()) == (
        404,
        {"detail": "Event not found: 'nope' in session 's1'."},
    )
    assert (session.status_code, session.json()) == (
        404,
        {"detail": "Session not found: 'missing'."},
    )
    assert app.status_code == 404 and app.json()["detail"].startswith("App not found: 'nope'")


def test_graph_is_only_for_the_sessions_owner(serve: Callable[[Any], LiveServer]) -> None:
    app = create_app(AGENTS_DIR, auth_token={"tok-alice": "alice", "tok-bob": "bob"})
    server = serve(app)
    alice = server.client(Authorization="Bearer tok-alice")
    alice.post("/apps/team/users/alice/sessions/s1")
    alice.post("/run", json=run_body("team", "alice", "s1", "x = 1"))
    event_id = alice.get("/apps/team/users/alice/sessions/s1").json()["events"][1]["id"]
    path = f"/apps/team/users/alice/sessions/s1/events/{event_id}/graph"

    assert alice.get(path).status_code == 200
    assert server.client(Authorization="Bearer tok-bob").get(path).status_code == 403
    assert server.client().get(path).status_code == 401


class Catalog(BaseToolset):
    """A toolset: its tools are only known when it is asked (e.g. an MCP server)."""

    async def get_tools(self, readonly_context: Any = None) -> list[BaseTool]:
        raise AssertionError("drawing the graph must not list a toolset's tools")


def test_workflow_steps_are_numbered_and_transfers_upward_are_drawn() -> None:
    def lint(code: str) -> dict:
        """Lints code.

        Args:
          code: the code.
        """
        return {}

    steps = SequentialAgent(
        name="pipeline",
        sub_agents=[
            LlmAgent(name="lint_step", tools=[FunctionTool(lint, name='lint "strict"')]),
            LlmAgent(name="report_step"),
        ],
    )
    helper = LlmAgent(name="helper", tools=[Catalog()])
    root = LlmAgent(name="root", sub_agents=[steps, helper])
    back = Event(
        author="helper",
        content=types.Content(
            role="model",
            parts=[
                types.Part.from_function_call(name="transfer_to_agent", args={"agent_name": "root"})
            ],
        ),
    )
    called = Event(
        author="helper",
        content=types.Content(
            role="model", parts=[types.Part.from_function_call(name="lookup", args={})]
        ),
    )
    answered = Event(
        author="helper",
        content=types.Content(
            role="user",
            parts=[types.Part.from_function_response(name="transfer_to_agent", response={})],
        ),
        actions=EventActions(transfer_to_agent="root"),
    )

    plain = Dot.parse(agent_graph_dot(root))
    upward = Dot.parse(agent_graph_dot(root, back))
    from_toolset = Dot.parse(agent_graph_dot(root, called))

    assert plain.nodes["pipeline"] == {
        "label": "pipeline\\n(SequentialAgent)",
        "shape": "box",
        "style": "rounded",
    }
    assert plain.edges[("pipeline", "lint_step")] == {"label": "1"}
    assert plain.edges[("pipeline", "report_step")] == {"label": "2"}
    assert plain.nodes['lint_step/lint \\"strict\\"']["label"] == 'lint \\"strict\\"'
    assert plain.edges[("root", "pipeline")] == {}
    assert plain.nodes["helper/Catalog"]["label"] == "Catalog"
    assert upward.edges[("helper", "root")]["style"] == "dashed"
    assert upward.marked() == ({"helper", "root"}, {("helper", "root")})
    assert Dot.parse(agent_graph_dot(root, answered)).marked() == upward.marked()
    # a tool the toolset provided at run time joins the graph when it is called
    assert from_toolset.nodes["helper/lookup"]["label"] == "lookup"
    assert from_toolset.marked() == (
        {"helper", "helper/lookup"},
        {("helper", "helper/lookup")},
    )


def test_the_agents_of_a_graph_workflow_are_drawn_below_it() -> None:
    from pyadk.workflow import START, Workflow

    def prepare(node_input: str) -> str:
        return node_input

    writer = LlmAgent(name="writer")
    flow = Workflow(name="flow", edges=[(START, prepare, writer)])
    graph = Dot.parse(agent_graph_dot(flow))
    assert graph.nodes["flow"]["label"] == "flow\\n(Workflow)"
    assert ("flow", "writer") in graph.edges
