"""Agents: the base class, the LLM agent and the workflow agents."""

from pyadk.agents.base_agent import BaseAgent
from pyadk.agents.budget import BUDGET_EXCEEDED, Budget, BudgetExceededError
from pyadk.agents.callback_context import CallbackContext
from pyadk.agents.invocation_context import InvocationContext, LlmCallsLimitExceededError
from pyadk.agents.llm_agent import Agent, LlmAgent
from pyadk.agents.loop_agent import LoopAgent
from pyadk.agents.parallel_agent import ParallelAgent
from pyadk.agents.readonly_context import ReadonlyContext
from pyadk.agents.retry_policy import RetryPolicy
from pyadk.agents.router_agent import RouterAgent
from pyadk.agents.run_config import RunConfig, StreamingMode
from pyadk.agents.sequential_agent import SequentialAgent

__all__ = [
    "BUDGET_EXCEEDED",
    "Agent",
    "BaseAgent",
    "Budget",
    "BudgetExceededError",
    "CallbackContext",
    "InvocationContext",
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
]
