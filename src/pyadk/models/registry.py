"""LLMRegistry: resolves model name strings to BaseLlm classes by regular expression."""

from __future__ import annotations

import importlib
import re
from functools import lru_cache

from pyadk.models.base_llm import BaseLlm

_registry: dict[str, type[BaseLlm] | str] = {}
"""Pattern -> class, or ``"module:Class"`` for a class imported on first use."""


class LLMRegistry:
    """Maps model-name regexes to model classes; ``new_llm("name")`` builds one."""

    @staticmethod
    def register(llm_cls: type[BaseLlm]) -> None:
        """Registers every regex of ``llm_cls.supported_models()``."""
        for pattern in llm_cls.supported_models():
            LLMRegistry._register(pattern, llm_cls)

    @staticmethod
    def register_lazy(pattern: str, target: str) -> None:
        """Registers ``pattern`` for the class ``target`` (``"module:Class"``), imported
        only when a model name matches, so optional SDKs load on first use."""
        LLMRegistry._register(pattern, target)

    @staticmethod
    def _register(pattern: str, llm_cls: type[BaseLlm] | str) -> None:
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


def _load(pattern: str, target: str) -> type[BaseLlm]:
    module_name, _, class_name = target.partition(":")
    llm_cls: type[BaseLlm] = getattr(importlib.import_module(module_name), class_name)
    if _registry.get(pattern) == target:
        _registry[pattern] = llm_cls
    return llm_cls


@lru_cache(maxsize=64)
def _resolve_cached(model: str) -> type[BaseLlm]:
    for pattern, llm_cls in reversed(list(_registry.items())):
        if re.fullmatch(pattern, model):
            return _load(pattern, llm_cls) if isinstance(llm_cls, str) else llm_cls
    known = ", ".join(sorted(_registry)) or "none"
    raise ValueError(f"Model {model!r} not found. Registered model patterns: {known}.")
