"""Helpers for checker functions: load a solution, walk its agents, run it with a script.

A checker is ``def check(solution: str) -> None | bool | str`` (the solution file's
path). It passes by returning None or True; it fails by returning False or a reason,
or by raising (an AssertionError's message is the reason). Checkers run in a sandboxed
child process, so they may import the solution.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from pyadk import types
from pyadk.agents import BaseAgent, LlmAgent
from pyadk.contrib._loading import load_module_from_file
from pyadk.contrib.structured_workflow._agent_runner import find_root_agent, override_models
from pyadk.events.event import Event
from pyadk.models.base_llm import BaseLlm
from pyadk.testing import FunctionModel, ScriptedModel, TestRunner
from pyadk.tools import AgentTool, BaseTool, FunctionTool

A = TypeVar("A", bound=BaseAgent)


def load_solution(path: str | Path) -> Any:
    """Imports the solution file as a module."""
    return load_module_from_file(path, "solution")


def load_agent(path: str | Path) -> BaseAgent:
    """The solution's ``root_agent`` (or its one top-level agent)."""
    return find_root_agent(load_solution(path))


def walk(root: BaseAgent) -> Iterator[BaseAgent]:
    """Every agent of the tree (sub-agents, finally agents, AgentTool agents), root first."""
    seen: set[int] = set()
    stack = [root]
    while stack:
        agent = stack.pop(0)
        if id(agent) in seen:
            continue
        seen.add(id(agent))
        yield agent
        stack.extend(agent._children())
        if isinstance(agent, LlmAgent):
            stack.extend(t.agent for t in agent.tools if isinstance(t, AgentTool))


def agents_of(root: BaseAgent, kind: type[A]) -> list[A]:
    """The agents of the tree that are instances of ``kind``."""
    return [a for a in walk(root) if isinstance(a, kind)]


def the_agent(root: BaseAgent, kind: type[A]) -> A:
    """The first agent of type ``kind`` in the tree (AssertionError if none)."""
    found = agents_of(root, kind)
    assert found, f"the solution has no {kind.__name__}"
    return found[0]


def tools_of(agent: LlmAgent) -> list[BaseTool]:
    """The agent's tools as BaseTool objects."""
    return asyncio.run(agent.canonical_tools())


def function_of(tool: Any) -> Callable[..., Any] | None:
    """The Python function behind a tool (None for a tool that has none)."""
    if isinstance(tool, FunctionTool):
        return tool.func
    if callable(tool) and not isinstance(tool, BaseTool):
        return tool
    return None


def numbers_in(value: Any) -> list[float]:
    """Every number in a tool result (nested dicts and lists, numeric strings)."""
    if isinstance(value, bool):
        return []
    if isinstance(value, int | float):
        return [float(value)]
    if isinstance(value, str):
        try:
            return [float(value.strip())]
        except ValueError:
            return []
    if isinstance(value, dict):
        return [n for v in value.values() for n in numbers_in(v)]
    if isinstance(value, list | tuple):
        return [n for v in value for n in numbers_in(v)]
    return []


@dataclass
class ScriptedRun:
    """What a scripted run of the solution did."""

    events: list[Event]
    state: dict[str, Any]
    model: BaseLlm
    texts: list[str] = field(default_factory=list)

    def responses(self, tool_name: str) -> list[Any]:
        """The results the tool ``tool_name`` returned during the run."""
        return [
            r.response
            for e in self.events
            for r in e.get_function_responses()
            if r.name == tool_name
        ]


def run_scripted(
    root: BaseAgent,
    replies: list[Any] | Callable[[Any], Any],
    message: str = "hello",
    state: dict[str, Any] | None = None,
) -> ScriptedRun:
    """Runs one turn of ``root`` with a ScriptedModel (a list of replies) or a FunctionModel
    (a function of the request) in place of every model the solution names."""
    model: BaseLlm = ScriptedModel(replies) if isinstance(replies, list) else FunctionModel(replies)
    for agent in walk(root):
        if isinstance(agent, LlmAgent):
            agent.model = model
    override_models(root, model)

    async def run() -> ScriptedRun:
        runner = TestRunner(root, state=state)
        events = await runner.run(types.UserContent(message))
        final = [e.text for e in events if e.text and not e.partial]
        return ScriptedRun(events, dict(await runner.state()), model, final)

    return asyncio.run(run())


def agent_name_of(request: Any) -> str:
    """The name of the agent a model request comes from (from its identity line)."""
    text = request.system_instruction_text()
    marker = 'Your name is "'
    start = text.find(marker)
    if start < 0:
        return ""
    start += len(marker)
    return text[start : text.find('"', start)]
