"""Models: the BaseLlm contract, requests, responses and the name registry."""

from pyadk.models.base_llm import BaseLlm
from pyadk.models.llm_request import LlmRequest
from pyadk.models.llm_response import LlmResponse
from pyadk.models.registry import LLMRegistry

__all__ = ["BaseLlm", "LLMRegistry", "LlmRequest", "LlmResponse"]
