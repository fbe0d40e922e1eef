"""Agents: the base class, the LLM agent and the workflow agents."""

from typing import TYPE_CHECKING

from pyadk.agents.base_agent import BaseAgent
from pyadk.agents.budget import BUDGET_EXCEEDED, Budget, BudgetExceededError
from pyadk.agents.callback_context import CallbackContext
from pyadk.agents.invocation_context import InvocationContext, LlmCallsLimitExceededError
from pyadk.agents.llm_agent import Agent, LlmAgent
from pyadk.agents.readonly_context import ReadonlyContext
from pyadk.agents.retry_policy import RetryPolicy
from pyadk.agents.run_config import RunConfig, StreamingMode, ToolThreadPoolConfig
from pyadk.utils.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from pyadk.agents.live_request_queue import LiveRequest, LiveRequestQueue
    from pyadk.agents.loop_agent import LoopAgent
    from pyadk.agents.parallel_agent import ParallelAgent
    from pyadk.agents.router_agent import RouterAgent
    from pyadk.agents.sequential_agent import SequentialAgent

# The workflow agents and live mode load on first use: a program pays for the agents it
# uses (RemoteA2aAgent also needs the a2a extra).
__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "LiveRequest": ".live_request_queue",
        "LiveRequestQueue": ".live_request_queue",
        "LoopAgent": ".loop_agent",
        "ParallelAgent": ".parallel_agent",
        "RemoteA2aAgent": ".remote_a2a_agent",
        "RouterAgent": ".router_agent",
        "SequentialAgent": ".sequential_agent",
    },
    globals(),
)

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
