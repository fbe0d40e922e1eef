"""The adapter conformance suite against Gemini (the real google-genai SDK, local fixtures)."""

from __future__ import annotations

from pyadk.models import BaseLlm, Gemini
from pyadk.testing.model_conformance import GeminiWire, ModelConformance


class TestGeminiConformance(ModelConformance):
    wire = GeminiWire()

    def make_model(self, base_url: str) -> BaseLlm:
        return Gemini(model="gemini-fixture", base_url=base_url, api_key="k", max_retries=0)
