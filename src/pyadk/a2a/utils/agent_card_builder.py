"""AgentCardBuilder: the A2A agent card that describes a pyadk agent.

Skills, as google-adk lists them: an LLM agent is a ``model`` skill (id = agent name,
tag ``llm``) plus one skill per tool (id ``<agent>-<tool>``, tags ``llm``, ``tools``),
``planning`` and ``code-execution`` skills when it has a planner or code executor; a
workflow agent is a ``workflow`` skill tagged with its kind plus a ``sub-agents``
orchestration skill. Each sub-agent's own skills follow, prefixed with its name and
tagged ``sub_agent:<name>``. A graph ``Workflow`` is a ``workflow`` skill tagged
``graph_workflow`` whose description lists its nodes.
"""

from __future__ import annotations

import logging
from typing import Any

from a2a.types import AgentCapabilities, AgentCard, AgentInterface, AgentProvider, AgentSkill

from pyadk.agents.base_agent import BaseAgent
from pyadk.agents.llm_agent import LlmAgent
from pyadk.agents.loop_agent import LoopAgent
from pyadk.agents.parallel_agent import ParallelAgent
from pyadk.agents.sequential_agent import SequentialAgent

logger = logging.getLogger(__name__)

DEFAULT_RPC_URL = "http://localhost:80/a2a"
PROTOCOL_VERSION = "1.0"
JSONRPC_BINDING = "JSONRPC"


class AgentCardBuilder:
    """Builds the :class:`a2a.types.AgentCard` of ``agent`` served at ``rpc_url``."""

    def __init__(
        self,
        *,
        agent: BaseAgent,
        rpc_url: str | None = None,
        capabilities: AgentCapabilities | None = None,
        doc_url: str | None = None,
        provider: AgentProvider | None = None,
        agent_version: str | None = None,
    ) -> None:
        if agent is None:
            raise ValueError("Agent cannot be None or empty.")
        if not isinstance(agent, BaseAgent):
            raise TypeError(f"AgentCardBuilder needs a BaseAgent, got {type(agent).__name__}")
        self._agent = agent
        self._rpc_url = rpc_url or DEFAULT_RPC_URL
        self._capabilities = capabilities or AgentCapabilities(streaming=True)
        self._doc_url = doc_url
        self._provider = provider
        self._agent_version = agent_version or "0.0.1"

    async def build(self) -> AgentCard:
        """The card: name, description, JSON-RPC interface, capabilities and skills."""
        try:
            skills = await _primary_skills(self._agent) + await _sub_agent_skills(self._agent)
        except Exception as error:
            raise RuntimeError(
                f"Failed to build the agent card of {self._agent.name}: {error}"
            ) from error
        card = AgentCard(
            name=self._agent.name,
            description=self._agent.description or "An ADK Agent",
            version=self._agent_version,
            default_input_modes=["text/plain"],
            default_output_modes=["text/plain"],
            skills=skills,
        )
        card.supported_interfaces.append(
            AgentInterface(
                url=self._rpc_url.rstrip("/"),
                protocol_binding=JSONRPC_BINDING,
                protocol_version=PROTOCOL_VERSION,
            )
        )
        card.capabilities.CopyFrom(self._capabilities)
        if self._provider is not None:
            card.provider.CopyFrom(self._provider)
        if self._doc_url:
            card.documentation_url = self._doc_url
        return card


def _skill(id: str, name: str, description: str, tags: list[str], **extra: Any) -> AgentSkill:
    return AgentSkill(id=id, name=name, description=description, tags=tags, **extra)


def _graph_nodes(agent: Any) -> list[Any] | None:
    """The nodes of a graph Workflow (without START), None for any other agent."""
    nodes = getattr(getattr(agent, "graph", None), "nodes", None)
    if not isinstance(nodes, dict):
        return None
    return [node for node in nodes.values() if node.name != "__START__"]


def _children(agent: Any) -> list[Any]:
    """Sub-agents, or a graph Workflow's nodes (an agent node as its agent)."""
    nodes = _graph_nodes(agent)
    if nodes is not None:
        return [getattr(node, "agent", node) for node in nodes]
    return list(getattr(agent, "sub_agents", None) or [])


def _agent_kind(agent: Any) -> str:
    if _graph_nodes(agent) is not None:
        return "graph_workflow"
    if isinstance(agent, LlmAgent):
        return "llm"
    if isinstance(agent, SequentialAgent):
        return "sequential_workflow"
    if isinstance(agent, ParallelAgent):
        return "parallel_workflow"
    if isinstance(agent, LoopAgent):
        return "loop_workflow"
    return "custom_agent"


_DEFAULT_DESCRIPTIONS = {
    "llm": "An LLM-based agent",
    "sequential_workflow": "A sequential workflow agent",
    "parallel_workflow": "A parallel workflow agent",
    "loop_workflow": "A loop workflow agent",
    "graph_workflow": "A graph-based workflow agent",
    "custom_agent": "A custom agent",
}


def _steps(agent: Any) -> list[str]:
    return [s.description or f"execute the {s.name} agent" for s in _children(agent)]


def _workflow_description(agent: Any) -> str | None:
    steps = _steps(agent)
    if not steps:
        return None
    if _graph_nodes(agent) is not None:
        said = [
            f"{c.name}: " + (c.description.rstrip(".") or f"execute the {c.name} node")
            for c in _children(agent)
        ]
        return "This workflow orchestrates the following nodes: " + "; ".join(said) + "."
    if isinstance(agent, SequentialAgent):
        said = [
            ("First" if i == 0 else "Finally" if i == len(steps) - 1 else "Then")
            + f", this agent will {step}"
            for i, step in enumerate(steps)
        ]
        return " ".join(said) + "."
    if isinstance(agent, ParallelAgent | LoopAgent):
        joined = f"This agent will {steps[0]}"
        for i, step in enumerate(steps[1:], start=1):
            joined += f" and {step}" if i == len(steps) - 1 else f" , {step}"
        if isinstance(agent, ParallelAgent):
            return joined + " simultaneously."
        limit = "unlimited" if agent.max_iterations is None else agent.max_iterations
        return f"{joined} in a loop (max {limit} iterations)."
    return None


def _description(agent: Any) -> str:
    pieces = [agent.description] if agent.description else []
    if not isinstance(agent, LlmAgent):
        workflow = _workflow_description(agent)
        if workflow:
            pieces.append(workflow)
    return " ".join(pieces) if pieces else _DEFAULT_DESCRIPTIONS[_agent_kind(agent)]


async def _primary_skills(agent: Any) -> list[AgentSkill]:
    if isinstance(agent, LlmAgent):
        return await _llm_skills(agent)
    kind = _agent_kind(agent)
    name = "custom" if kind == "custom_agent" else "workflow"
    skills = [_skill(agent.name, name, _description(agent), [kind])]
    children = _children(agent)
    if children:
        summary = "; ".join(f"{s.name}: {s.description or 'No description'}" for s in children)
        skills.append(
            _skill(
                f"{agent.name}-sub-agents",
                "sub-agents",
                "Orchestrates: " + summary,
                [kind, "orchestration"],
            )
        )
    return skills


async def _llm_skills(agent: LlmAgent) -> list[AgentSkill]:
    skills = [_skill(agent.name, "model", _description(agent), ["llm"])]
    for tool in await agent.canonical_tools():
        description = getattr(tool, "description", "") or f"Tool: {tool.name}"
        skills.append(_skill(f"{agent.name}-{tool.name}", tool.name, description, ["llm", "tools"]))
    if getattr(agent, "planner", None) is not None:
        skills.append(
            _skill(
                f"{agent.name}-planner",
                "planning",
                "Can think about the tasks to do and make plans",
                ["llm", "planning"],
            )
        )
    if getattr(agent, "code_executor", None) is not None:
        skills.append(
            _skill(
                f"{agent.name}-code-executor",
                "code-execution",
                "Can execute code",
                ["llm", "code_execution"],
            )
        )
    return skills


async def _sub_agent_skills(agent: Any) -> list[AgentSkill]:
    skills: list[AgentSkill] = []
    for sub_agent in _children(agent):
        try:
            sub_skills = await _primary_skills(sub_agent)
        except Exception as error:  # one odd child does not cost the card
            logger.warning("No skills for sub-agent %s: %s", sub_agent.name, error)
            continue
        for skill in sub_skills:
            skills.append(
                _skill(
                    f"{sub_agent.name}_{skill.id}",
                    f"{sub_agent.name}: {skill.name}",
                    skill.description,
                    [f"sub_agent:{sub_agent.name}", *skill.tags],
                )
            )
    return skills
