"""PoC 6: a SequentialAgent A-B-C-D where a failure in A skips B and C; D always runs."""

from . import agent
from .agent import root_agent

__all__ = ["agent", "root_agent"]
