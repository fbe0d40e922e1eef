"""Model-name checks: whether a model id names a Gemini model."""

from __future__ import annotations

import os
import re

DISABLE_GEMINI_MODEL_ID_CHECK_ENV = "ADK_DISABLE_GEMINI_MODEL_ID_CHECK"
"""Set (``1``, ``true``, ``yes``) to let Gemini built-in tools go to any model id (for
model ids that do not follow the ``gemini-*`` naming, e.g. behind a gateway)."""

_PATHS = (
    re.compile(r"^projects/[^/]+/locations/[^/]+/publishers/[^/]+/models/(.+)$"),
    re.compile(r"^apigee/(?:[^/]+/)?(?:[^/]+/)?(.+)$"),
)


def model_name(model: str) -> str:
    """The bare model name of a model id: ``models/gemini-2.5-pro``, a Vertex AI path
    or a provider-prefixed name (``gemini/gemini-2.5-flash``) give ``gemini-...``."""
    for pattern in _PATHS:
        match = pattern.match(model)
        if match:
            return match.group(1)
    if model.startswith("models/"):
        return model[len("models/") :]
    if "/" in model and not model.startswith("projects/"):
        last = model.rsplit("/", 1)[1]
        if last.startswith("gemini-"):
            return last
    return model


def is_gemini_model(model: str | None) -> bool:
    """Whether ``model`` names a Gemini model (``gemini-...`` once paths are removed)."""
    return bool(model) and model_name(model).startswith("gemini-")  # type: ignore[arg-type]


def gemini_check_disabled() -> bool:
    """Whether :data:`DISABLE_GEMINI_MODEL_ID_CHECK_ENV` is set."""
    value = os.environ.get(DISABLE_GEMINI_MODEL_ID_CHECK_ENV, "")
    return value.strip().lower() in ("1", "true", "yes", "on")
