"""A plugin counting a run's model calls and tokens."""

from __future__ import annotations

from typing import Any

from pyadk.agents.callback_context import CallbackContext
from pyadk.models.llm_request import LlmRequest
from pyadk.models.llm_response import LlmResponse
from pyadk.plugins.base_plugin import BasePlugin


class MetricsPlugin(BasePlugin):
    """Counts model calls (answered or failed), prompt and output tokens, per agent too."""

    def __init__(self) -> None:
        super().__init__(name="bench_metrics")
        self.model_calls = 0
        self.model_errors = 0
        self.prompt_tokens = 0
        self.output_tokens = 0
        self.calls_by_agent: dict[str, int] = {}

    async def after_model_callback(
        self, *, callback_context: CallbackContext, llm_response: LlmResponse
    ) -> LlmResponse | None:
        if llm_response.partial:
            return None
        self.model_calls += 1
        name = callback_context.agent_name
        self.calls_by_agent[name] = self.calls_by_agent.get(name, 0) + 1
        usage = llm_response.usage_metadata
        if usage is not None:
            self.prompt_tokens += usage.prompt_token_count or 0
            self.output_tokens += usage.candidates_token_count or 0
        return None

    async def on_model_error_callback(
        self, *, callback_context: CallbackContext, llm_request: LlmRequest, error: Exception
    ) -> LlmResponse | None:
        self.model_calls += 1
        self.model_errors += 1
        return None

    def as_dict(self) -> dict[str, Any]:
        """The counts, for a result record."""
        return {
            "model_calls": self.model_calls,
            "model_errors": self.model_errors,
            "prompt_tokens": self.prompt_tokens,
            "output_tokens": self.output_tokens,
            "total_tokens": self.prompt_tokens + self.output_tokens,
            "calls_by_agent": dict(self.calls_by_agent),
        }
