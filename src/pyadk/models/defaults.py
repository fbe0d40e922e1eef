"""The model used by an LlmAgent that names none (directly or through its ancestors)."""

from __future__ import annotations

from pyadk.models.base_llm import BaseLlm

_default_model: BaseLlm | str | None = None


def set_default_model(model: BaseLlm | str | None) -> None:
    """Sets the model every LlmAgent without a model (and no ancestor model) uses."""
    global _default_model
    _default_model = model


def get_default_model() -> BaseLlm | str | None:
    """The configured default model, or None."""
    return _default_model
