"""The adapter conformance suite against Claude (the real anthropic SDK, local fixtures)."""

from __future__ import annotations

from pyadk.models import BaseLlm, Claude
from pyadk.testing.model_conformance import AnthropicWire, ModelConformance


class TestClaudeConformance(ModelConformance):
    wire = AnthropicWire()

    def make_model(self, base_url: str) -> BaseLlm:
        return Claude(model="claude-fixture", base_url=base_url, api_key="k", max_retries=0)
