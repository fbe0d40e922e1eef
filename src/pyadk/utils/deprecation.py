"""Deprecation warnings for settings google-adk deprecates."""

from __future__ import annotations

import sys
import warnings

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
