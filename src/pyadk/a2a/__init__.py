"""A2A (Agent2Agent protocol) support: serve an agent over A2A and call remote A2A agents.

Needs the ``a2a`` extra (``pip install 'pyadk[a2a]'``, which brings ``a2a-sdk`` 1.x).
Public names: :func:`pyadk.a2a.utils.agent_to_a2a.to_a2a`,
:class:`pyadk.a2a.executor.a2a_agent_executor.A2aAgentExecutor`,
:class:`pyadk.a2a.utils.agent_card_builder.AgentCardBuilder`, the converters in
:mod:`pyadk.a2a.converters` and :class:`pyadk.agents.remote_a2a_agent.RemoteA2aAgent`.
"""

from __future__ import annotations

import importlib
from typing import Any

from pyadk.a2a._sdk import require_a2a_sdk

require_a2a_sdk()

_LAZY = {
    "A2aAgentExecutor": "pyadk.a2a.executor.a2a_agent_executor",
    "A2aAgentExecutorConfig": "pyadk.a2a.executor.config",
    "ExecuteInterceptor": "pyadk.a2a.executor.config",
    "AgentCardBuilder": "pyadk.a2a.utils.agent_card_builder",
    "to_a2a": "pyadk.a2a.utils.agent_to_a2a",
}

__all__ = sorted(_LAZY)


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'pyadk.a2a' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
