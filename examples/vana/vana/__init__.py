"""VANA (seed 002): one assistant, real specialists, silent handoffs, a chained workflow."""

from . import agent
from .agent import create_root_agent, root_agent

__all__ = ["agent", "create_root_agent", "root_agent"]
