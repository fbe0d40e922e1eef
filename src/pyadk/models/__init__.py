"""Models: the BaseLlm contract, requests, responses and the name registry.

The provider adapters (``Gemini``, ``OpenAIChat``, ``Claude``, ``LiteLlm``) and the
embedded ``LocalLlm`` are imported on first use, so ``import pyadk.models`` loads no SDK
or inference runtime; their model-name patterns are registered up front.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from pyadk.models.base_llm import BaseLlm
from pyadk.models.defaults import get_default_model, set_default_model
from pyadk.models.llm_request import LlmRequest
from pyadk.models.llm_response import LlmResponse
from pyadk.models.registry import LLMRegistry

if TYPE_CHECKING:
    from pyadk.models.anthropic_llm import Claude
    from pyadk.models.base_llm_connection import BaseLlmConnection, LiveConnectionClosedError
    from pyadk.models.fallback_llm import AllModelsFailedError, FallbackLlm
    from pyadk.models.gemini import Gemini
    from pyadk.models.lite_llm import LiteLlm
    from pyadk.models.openai_chat import OpenAIChat

_ADAPTERS = {
    "Gemini": "pyadk.models.gemini",
    "OpenAIChat": "pyadk.models.openai_chat",
    "Claude": "pyadk.models.anthropic_llm",
    "LiteLlm": "pyadk.models.lite_llm",
}
_ADAPTER_PATTERNS = {
    "Gemini": [
        r"gemini-.*",
        r"projects/.+/locations/.+/endpoints/.+",
        r"projects/.+/locations/.+/publishers/google/models/gemini.+",
    ],
    "OpenAIChat": [r"openai/.+"],
    "Claude": [r"claude-.*", r"anthropic/.+"],
    "LiteLlm": [r"litellm/.+"],
}
for _name, _patterns in _ADAPTER_PATTERNS.items():
    for _pattern in _patterns:
        LLMRegistry.register_lazy(_pattern, f"{_ADAPTERS[_name]}:{_name}")

# The embedded model (``model="local"``); its runtime is imported only when it loads.
_LOCAL_LLM = "pyadk.models.local.local_llm:LocalLlm"
_LOCAL_PATTERNS = [r"local", r"qwen2\.5-coder-0\.5b-instruct.*"]
for _pattern in _LOCAL_PATTERNS:
    LLMRegistry.register_lazy(_pattern, _LOCAL_LLM)


_LAZY = {
    **_ADAPTERS,
    "FallbackLlm": "pyadk.models.fallback_llm",
    "AllModelsFailedError": "pyadk.models.fallback_llm",
    "BaseLlmConnection": "pyadk.models.base_llm_connection",  # live mode only
    "LiveConnectionClosedError": "pyadk.models.base_llm_connection",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "AllModelsFailedError",
    "BaseLlm",
    "BaseLlmConnection",
    "Claude",
    "FallbackLlm",
    "Gemini",
    "LLMRegistry",
    "LiteLlm",
    "LiveConnectionClosedError",
    "LlmRequest",
    "LlmResponse",
    "OpenAIChat",
    "get_default_model",
    "set_default_model",
]
