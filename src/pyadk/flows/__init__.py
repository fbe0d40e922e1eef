"""LLM flows: the execution engine behind LlmAgent."""

from pyadk.flows.auto_flow import AutoFlow
from pyadk.flows.base_llm_flow import BaseLlmFlow
from pyadk.flows.single_flow import SingleFlow

__all__ = ["AutoFlow", "BaseLlmFlow", "SingleFlow"]
