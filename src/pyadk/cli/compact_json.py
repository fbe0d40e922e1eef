"""One line of JSON for the terminal: tool arguments, results and payloads."""

from __future__ import annotations

import json
from typing import Any

MAX_VALUE_CHARS = 500
"""Tool arguments, results and payloads longer than this are cut in the display."""


def compact_json(value: Any, limit: int = MAX_VALUE_CHARS) -> str:
    """``value`` as one line of JSON (``repr`` if it has none), cut to ``limit`` characters."""
    try:
        text = json.dumps(value, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"
