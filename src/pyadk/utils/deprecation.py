"""Deprecation warnings for settings google-adk deprecates."""

from __future__ import annotations

import sys
import warnings
from typing import TypeVar

_V = TypeVar("_V")

_INTERNAL = ("pydantic", "pyadk")


def _caller_level() -> int:
    """The ``stacklevel`` of the first frame outside pydantic and pyadk (the line that
    built the model), counted from :func:`warn_deprecated_setting`'s caller."""
    frame = sys._getframe(2)
    level = 2
    while frame is not None and str(frame.f_globals.get("__name__", "")).startswith(_INTERNAL):
        frame = frame.f_back  # type: ignore[assignment]
        level += 1
    return level


def warn_deprecated_setting(setting: str, instead: str) -> None:
    """Warns (``DeprecationWarning``) that ``setting`` is deprecated in favour of
    ``instead``, pointing at the user's line that set it."""
    warnings.warn(
        f"{setting} is deprecated (as in google-adk); use {instead} instead.",
        DeprecationWarning,
        stacklevel=_caller_level(),
    )


def warn_if_set(value: _V, setting: str, instead: str) -> _V:
    """``value`` as it is, warning (see :func:`warn_deprecated_setting`) when it is set
    (truthy); for the field validators of deprecated settings."""
    if value:
        warn_deprecated_setting(setting, instead)
    return value
