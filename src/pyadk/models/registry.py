"""LLMRegistry: resolves model name strings to BaseLlm classes by regular expression."""

from __future__ import annotations

import re
from functools import lru_cache

from pyadk.models.base_llm import BaseLlm

_registry: dict[str, type[BaseLlm]] = {}


class LLMRegistry:
    """Maps model-name regexes to model classes; ``new_llm("name")`` builds one."""

    @staticmethod
    def register(llm_cls: type[BaseLlm]) -> None:
        """Registers every regex of ``llm_cls.supported_models()``."""
        for pattern in llm_cls.supported_models():
            LLMRegistry._register(pattern, llm_cls)

    @staticmethod
    def _register(pattern: str, llm_cls: type[BaseLlm]) -> None:
        _registry[pattern] = llm_cls
        _resolve_cached.cache_clear()

    @staticmethod
    def resolve(model: str) -> type[BaseLlm]:
        """The class serving ``model``; ValueError naming the model when none does."""
        return _resolve_cached(model)

    @staticmethod
    def new_llm(model: str) -> BaseLlm:
        """A new model object for ``model``."""
        return LLMRegistry.resolve(model)(model=model)


@lru_cache(maxsize=64)
def _resolve_cached(model: str) -> type[BaseLlm]:
    for pattern, llm_cls in reversed(list(_registry.items())):
        if re.fullmatch(pattern, model):
            return llm_cls
    known = ", ".join(sorted(_registry)) or "none"
    raise ValueError(f"Model {model!r} not found. Registered model patterns: {known}.")
