"""Helpers shared by the agent tests: scripted agents, a failing tool, outcome readers."""

from __future__ import annotations

from typing import Any

from pyadk.agents import LlmAgent, RunConfig
from pyadk.testing import ScriptedModel, function_call

ALL = RunConfig(record_outcomes="all")
"""Records successes too (by default only other outcomes are recorded)."""

A_REASON = "tool failing_tool failed: Simulated failure"
"""The failure reason of an agent made by :func:`failing`."""


def failing_tool() -> dict:
    """Always fails."""
    return {"status": "error", "message": "Simulated failure"}


def llm(name: str, *replies: Any, **kwargs: Any) -> LlmAgent:
    """An LlmAgent whose model answers ``replies`` in order."""
    return LlmAgent(name=name, model=ScriptedModel(list(replies)), **kwargs)


def failing(name: str = "a") -> LlmAgent:
    """An agent whose tool reports an error (a failure without an exception)."""
    return llm(name, function_call("failing_tool"), f"{name} gave up", tools=[failing_tool])


def raising(name: str = "a") -> LlmAgent:
    """An agent whose model raises."""
    return llm(name, RuntimeError(f"{name} crashed"))


def calls(agent: LlmAgent) -> int:
    """How many times the agent's scripted model was called."""
    return agent.model.call_count


def outcome_statuses(events) -> dict[str, str]:
    """Each agent's status, from the outcome events among ``events`` (the last one wins)."""
    return {e.author: e.actions.agent_outcome.status.value for e in events if e.is_outcome_event()}
