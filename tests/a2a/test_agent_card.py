"""The agent card to_a2a serves, built from the agent (AgentCardBuilder)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx

from pyadk.a2a.utils.agent_card_builder import AgentCardBuilder
from pyadk.agents import LlmAgent, SequentialAgent
from pyadk.testing import ScriptedModel


def get_weather(city: str) -> dict[str, Any]:
    """Get the weather for a city."""
    return {"city": city}


def _skills(card: dict[str, Any]) -> dict[str, tuple[str, str, list[str]]]:
    return {s["id"]: (s["name"], s["description"], s["tags"]) for s in card["skills"]}


def test_served_card_names_the_agent_its_tools_and_sub_agents(
    serve_a2a: Callable[..., str],
) -> None:
    helper = LlmAgent(name="helper", model=ScriptedModel([]), description="Helps out")
    agent = LlmAgent(
        name="weather_agent",
        model=ScriptedModel([]),
        description="Tells the weather",
        tools=[get_weather],
        sub_agents=[helper],
    )
    url = serve_a2a(agent)

    response = httpx.get(url)

    assert response.status_code == 200
    card = response.json()
    assert card["name"] == "weather_agent"
    assert card["description"] == "Tells the weather"
    assert card["version"] == "0.0.1"
    assert card["capabilities"] == {"streaming": True}
    assert card["defaultInputModes"] == card["defaultOutputModes"] == ["text/plain"]
    base = url.removesuffix("/.well-known/agent-card.json")
    assert card["supportedInterfaces"] == [
        {"url": base, "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}
    ]
    assert _skills(card) == {
        "weather_agent": ("model", "Tells the weather", ["llm"]),
        "weather_agent-get_weather": (
            "get_weather",
            "Get the weather for a city.",
            ["llm", "tools"],
        ),
        "helper_helper": ("helper: model", "Helps out", ["sub_agent:helper", "llm"]),
    }


async def test_workflow_agent_card_describes_its_steps() -> None:
    first = LlmAgent(name="drafter", model=ScriptedModel([]), description="write a draft")
    second = LlmAgent(name="editor", model=ScriptedModel([]))
    pipeline = SequentialAgent(name="pipeline", sub_agents=[first, second])

    card = await AgentCardBuilder(agent=pipeline, rpc_url="http://127.0.0.1:9/").build()

    assert card.description == "An ADK Agent"
    skills = {s.id: s for s in card.skills}
    assert skills["pipeline"].name == "workflow"
    assert skills["pipeline"].description == (
        "First, this agent will write a draft Finally, this agent will execute the editor agent."
    )
    assert list(skills["pipeline"].tags) == ["sequential_workflow"]
    assert skills["pipeline-sub-agents"].description == (
        "Orchestrates: drafter: write a draft; editor: No description"
    )
    assert card.supported_interfaces[0].url == "http://127.0.0.1:9"


def test_rpc_path_mounts_card_and_rpc_under_a_prefix(serve_a2a: Callable[..., str]) -> None:
    url = serve_a2a(LlmAgent(name="nested", model=ScriptedModel([])), rpc_path="/agents/nested/")
    base = url.removesuffix("/.well-known/agent-card.json")

    assert httpx.get(url).status_code == 404
    card = httpx.get(base + "/agents/nested/.well-known/agent-card.json").json()
    assert card["supportedInterfaces"][0]["url"] == base + "/agents/nested"


async def test_graph_workflow_card_lists_its_nodes() -> None:
    from pyadk.workflow import START, Workflow

    def fetch(query: str) -> str:
        """Fetches the page."""
        return query

    writer = LlmAgent(name="writer", model=ScriptedModel([]), description="Writes it up.")
    flow = Workflow(name="flow", edges=[(START, fetch, writer)])

    card = await AgentCardBuilder(agent=flow).build()

    skills = {s.id: (s.name, s.description, list(s.tags)) for s in card.skills}
    assert skills["flow"] == (
        "workflow",
        "This workflow orchestrates the following nodes: "
        "fetch: execute the fetch node; writer: Writes it up.",
        ["graph_workflow"],
    )
    assert skills["writer_writer"] == (
        "writer: model",
        "Writes it up.",
        ["sub_agent:writer", "llm"],
    )
    assert card.supported_interfaces[0].url == "http://localhost:80/a2a"
