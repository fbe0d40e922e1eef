"""The adapter conformance suite against LiteLlm (real litellm, local fixtures).

LiteLLM's ``openai/`` provider speaks the OpenAI wire format; its ``anthropic/``
provider speaks the Anthropic one, so thinking blocks travel through LiteLLM's own
translation both ways.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pyadk.models import BaseLlm, LiteLlm
from pyadk.testing.model_conformance import AnthropicWire, ModelConformance, OpenAIWire


class LiteLlmAnthropicWire(AnthropicWire):
    """The Anthropic wire as LiteLLM uses it, which differs from the Claude adapter's:
    LiteLLM asks for structured output with a forced ``json_tool_call`` tool, and
    reports Anthropic's 529 "overloaded" as an InternalServerError with status 500."""

    overloaded_status: ClassVar[int] = 500

    def response_schema(self, body: dict[str, Any]) -> dict[str, Any] | None:
        assert body["tool_choice"] == {"type": "tool", "name": "json_tool_call"}
        return self.tool_schemas(body).get("json_tool_call")


class TestLiteLlmOpenAIConformance(ModelConformance):
    wire = OpenAIWire()

    def make_model(self, base_url: str) -> BaseLlm:
        return LiteLlm(
            model="openai/fixture-model", api_base=f"{base_url}/v1", api_key="k", max_retries=0
        )


class TestLiteLlmAnthropicConformance(ModelConformance):
    wire = LiteLlmAnthropicWire()

    def make_model(self, base_url: str) -> BaseLlm:
        return LiteLlm(
            model="anthropic/claude-fixture", api_base=base_url, api_key="k", max_retries=0
        )
