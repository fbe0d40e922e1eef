"""Models: the BaseLlm contract, requests, responses and the name registry."""

from pyadk.models.base_llm import BaseLlm
from pyadk.models.defaults import get_default_model, set_default_model
from pyadk.models.llm_request import LlmRequest
from pyadk.models.llm_response import LlmResponse
from pyadk.models.registry import LLMRegistry

__all__ = [
    "BaseLlm",
    "LLMRegistry",
    "LlmRequest",
    "LlmResponse",
    "get_default_model",
    "set_default_model",
]
