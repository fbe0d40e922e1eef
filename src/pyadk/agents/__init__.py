"""Agents: the base class, the LLM agent and the workflow agents."""

from pyadk.agents.base_agent import BaseAgent
from pyadk.agents.budget import BUDGET_EXCEEDED, Budget, BudgetExceededError
from pyadk.agents.callback_context import CallbackContext
from pyadk.agents.invocation_context import InvocationContext, LlmCallsLimitExceededError
from pyadk.agents.live_request_queue import LiveRequest, LiveRequestQueue
from pyadk.agents.llm_agent import Agent, LlmAgent
from pyadk.agents.loop_agent import LoopAgent
from pyadk.agents.parallel_agent import ParallelAgent
from pyadk.agents.readonly_context import ReadonlyContext
from pyadk.agents.retry_policy import RetryPolicy
from pyadk.agents.router_agent import RouterAgent
from pyadk.agents.run_config import RunConfig, StreamingMode, ToolThreadPoolConfig
from pyadk.agents.sequential_agent import SequentialAgent

__all__ = [
    "BUDGET_EXCEEDED",
    "Agent",
    "BaseAgent",
    "Budget",
    "BudgetExceededError",
    "CallbackContext",
    "InvocationContext",
    "LiveRequest",
    "LiveRequestQueue",
    "LlmAgent",
    "LlmCallsLimitExceededError",
    "LoopAgent",
    "ParallelAgent",
    "ReadonlyContext",
    "RetryPolicy",
    "RouterAgent",
    "RunConfig",
    "SequentialAgent",
    "StreamingMode",
    "ToolThreadPoolConfig",
]


def __getattr__(name: str) -> object:
    # Lazy: RemoteA2aAgent needs the a2a extra, which importing pyadk.agents must not load.
    if name == "RemoteA2aAgent":
        from pyadk.agents.remote_a2a_agent import RemoteA2aAgent

        return RemoteA2aAgent
    raise AttributeError(f"module 'pyadk.agents' has no attribute {name!r}")
