"""Declaring graphs: edge syntax, nodes built from functions and agents, and the
errors a bad graph raises when the Workflow is built."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from pyadk.agents import LlmAgent
from pyadk.testing import ScriptedModel
from pyadk.workflow import (
    DEFAULT_ROUTE,
    START,
    AgentNode,
    Edge,
    FunctionNode,
    GraphValidationError,
    JoinNode,
    RetryConfig,
    Workflow,
    WorkflowConfigurationError,
    node,
)


def a() -> str:
    return "a"


def b() -> str:
    return "b"


def c() -> str:
    return "c"


def _edges(wf: Workflow) -> set[tuple[str, str, object]]:
    assert wf.graph is not None
    return {
        (e.from_node.name, e.to_node.name, tuple(e.route) if isinstance(e.route, list) else e.route)
        for e in wf.graph.edges
    }


def test_chain_fan_out_and_route_dict_become_edges():
    wf = Workflow(name="wf", edges=[(START, a, (b, c)), (b, {"x": c, DEFAULT_ROUTE: a})])
    assert _edges(wf) == {
        ("__START__", "a", None),
        ("a", "b", None),
        ("a", "c", None),
        ("b", "c", "x"),
        ("b", "a", DEFAULT_ROUTE),
    }
    assert wf.graph is not None
    assert sorted(wf.graph.nodes) == ["a", "b", "c"]
    assert isinstance(wf.graph.nodes["a"], FunctionNode)
    assert wf.graph.terminal_names == {"c"}


def test_explicit_edges_string_start_and_route_lists():
    wf = Workflow(
        name="wf",
        edges=[Edge(from_node="START", to_node=a), Edge(from_node=a, to_node=b, route=[1, 2])],
    )
    assert _edges(wf) == {("__START__", "a", None), ("a", "b", (1, 2))}


def test_fan_in_tuple_before_a_node_joins_every_pair():
    join = JoinNode(name="join")
    wf = Workflow(name="wf", edges=[(START, (a, b), join)])
    assert _edges(wf) == {
        ("__START__", "a", None),
        ("__START__", "b", None),
        ("a", "join", None),
        ("b", "join", None),
    }


def test_the_same_function_is_one_node_and_agents_become_agent_nodes():
    agent = LlmAgent(name="writer", model=ScriptedModel(["x"]))
    wf = Workflow(name="wf", edges=[(START, a, agent), (agent, b), (a, b)])
    assert wf.graph is not None
    assert isinstance(wf.graph.nodes["writer"], AgentNode)
    assert agent.parent_agent is wf
    assert wf.find_agent("writer") is agent


def test_node_decorator_renames_and_configures():
    @node(name="renamed", timeout=2, retry_config=RetryConfig(max_attempts=2))
    def original() -> None:
        return None

    assert isinstance(original, FunctionNode)
    assert (original.name, original.timeout) == ("renamed", 2)
    assert original.retry_config == RetryConfig(max_attempts=2)

    @node
    def plain() -> None:
        return None

    assert plain.name == "plain"
    agent_node = node(LlmAgent(name="w", model=ScriptedModel([])), name="writer2")
    assert isinstance(agent_node, AgentNode) and agent_node.name == "writer2"


def test_duplicate_names_are_rejected():
    def dup() -> None:
        return None

    other = FunctionNode(dup)
    with pytest.raises(GraphValidationError, match=r"Duplicate node names: \['dup'\]"):
        Workflow(name="wf", edges=[(START, dup, other)])


def test_a_graph_without_start_is_rejected():
    with pytest.raises(GraphValidationError, match="no START"):
        Workflow(name="wf", edges=[(a, b)])


def test_unreachable_nodes_are_rejected():
    with pytest.raises(GraphValidationError, match=r"not reachable from START: \['b', 'c'\]"):
        Workflow(name="wf", edges=[(START, a), (b, c)])


def test_edges_into_start_and_routed_start_edges_are_rejected():
    with pytest.raises(GraphValidationError, match="START cannot have incoming"):
        Workflow(name="wf", edges=[(START, a), Edge(from_node=a, to_node=START, route="x")])
    with pytest.raises(GraphValidationError, match="Edges from START cannot have a route"):
        Workflow(name="wf", edges=[Edge(from_node=START, to_node=a, route="x")])


def test_duplicate_edges_and_default_route_in_a_list_are_rejected():
    with pytest.raises(GraphValidationError, match="Duplicate edge: a -> b"):
        Workflow(name="wf", edges=[(START, a, b), (a, b)])
    with pytest.raises(GraphValidationError, match="DEFAULT_ROUTE cannot be listed"):
        Workflow(
            name="wf",
            edges=[(START, a), Edge(from_node=a, to_node=b, route=["x", DEFAULT_ROUTE])],
        )
    # Two edges between the same nodes on different routes are fine.
    Workflow(name="wf", edges=[(START, a, {"x": b}), (a, {"y": b})])


def test_a_cycle_needs_a_routed_edge():
    with pytest.raises(GraphValidationError, match="Cycle without a routed edge: a -> b -> a"):
        Workflow(name="wf", edges=[(START, a, b, a)])
    Workflow(name="wf", edges=[(START, a, b, {"again": a})])  # a bounded loop is fine


def test_things_that_are_not_nodes_are_rejected():
    with pytest.raises(WorkflowConfigurationError, match="Not a workflow node: 42"):
        Workflow(name="wf", edges=[(START, 42)])
    with pytest.raises(WorkflowConfigurationError, match="Invalid edge item"):
        Workflow(name="wf", edges=[[START, a]])
    with pytest.raises(WorkflowConfigurationError, match="at least two elements"):
        Workflow(name="wf", edges=[(START,)])
    with pytest.raises(WorkflowConfigurationError, match="Invalid route"):
        Workflow(name="wf", edges=[(START, a, {1.5: b})])
    with pytest.raises(WorkflowConfigurationError, match="at least one route"):
        Workflow(name="wf", edges=[(START, a, {})])
    with pytest.raises(WorkflowConfigurationError, match="Two routing dicts"):
        Workflow(name="wf", edges=[(START, a, {"x": b}, {"y": c})])


def test_lambda_and_bad_names_are_rejected():
    with pytest.raises(ValidationError, match="must be a valid Python identifier"):
        Workflow(name="wf", edges=[(START, lambda: 1)])
    named = node(lambda: 1, name="one")
    assert isinstance(named, FunctionNode) and named.name == "one"
    with pytest.raises(ValidationError, match="must be a valid Python identifier"):
        node(a, name="not valid")


def test_unsupported_features_fail_clearly():
    with pytest.raises(WorkflowConfigurationError, match="auth_config must be an AuthConfig"):
        node(a, auth_config=object())
    with pytest.raises(WorkflowConfigurationError, match="only be set when parallel_worker"):
        node(a, max_parallel_workers=2)
    with pytest.raises(WorkflowConfigurationError, match="at least 1"):
        node(a, parallel_worker=True, max_parallel_workers=0)
    with pytest.raises(WorkflowConfigurationError, match="require_confirmation must be a bool"):
        node(require_confirmation="yes")(a)
    with pytest.raises(TypeError, match="unexpected keyword"):
        node(a, colour="red")
    with pytest.raises(WorkflowConfigurationError, match="not sub_agents"):
        Workflow(name="wf", sub_agents=[LlmAgent(name="x", model=ScriptedModel([]))])
    with pytest.raises(ValidationError, match=r"RetryConfig\.exceptions"):
        RetryConfig(exceptions=[42])


def test_retry_config_delays_and_exception_filter():
    config = RetryConfig(initial_delay=0.5, backoff_factor=2, max_delay=1.5, jitter=0)
    assert [config.delay(n) for n in (1, 2, 3)] == [0.5, 1.0, 1.5]
    only = RetryConfig(max_attempts=3, exceptions=[LookupError])
    assert only.exceptions == ["LookupError"]
    assert only.should_retry(KeyError("k"), 1)  # a subclass counts
    assert not only.should_retry(ValueError("v"), 1)
    assert not only.should_retry(KeyError("k"), 3)  # the third attempt was the last
    assert RetryConfig().should_retry(ValueError(), 4) and not RetryConfig().should_retry(
        ValueError(), 5
    )


def test_one_agent_cannot_be_a_node_of_two_workflows():
    agent = LlmAgent(name="shared", model=ScriptedModel([]))
    Workflow(name="first", edges=[(START, agent)])
    with pytest.raises(ValueError, match="already has a parent agent"):
        Workflow(name="second", edges=[(START, agent)])
