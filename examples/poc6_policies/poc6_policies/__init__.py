"""PoC 6 with failure policies: no callbacks and no JSON parsing."""

from . import agent
from .agent import root_agent

__all__ = ["agent", "root_agent"]
