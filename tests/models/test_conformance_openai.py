"""The adapter conformance suite against OpenAIChat (the real openai SDK, local fixtures).

The OpenAI wire serves reasoning in ``reasoning_content`` (DeepSeek, llama.cpp) by
default; a second run serves it in ``reasoning``, as newer vLLM, Ollama and OpenRouter
do, and the adapter must send it back in that field.
"""

from __future__ import annotations

from pyadk.models import BaseLlm, OpenAIChat
from pyadk.testing.model_conformance import ModelConformance, OpenAIWire


class TestOpenAIChatConformance(ModelConformance):
    wire = OpenAIWire()

    def make_model(self, base_url: str) -> BaseLlm:
        return OpenAIChat(
            model="openai/fixture-model", base_url=f"{base_url}/v1", api_key="k", max_retries=0
        )


class TestOpenAIChatVllmReasoningConformance(TestOpenAIChatConformance):
    wire = OpenAIWire(reasoning_field="reasoning")
