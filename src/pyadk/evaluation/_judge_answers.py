"""Reading what a judge model wrote: ``Field: value`` blocks, yes/no verdicts and a
JSON object, tolerant of the markdown and quoting models add."""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Collection
from typing import Any

_FIELD_LINE = re.compile(r"^[\s>*_`#-]*([A-Za-z][A-Za-z _-]*?)[\s*_`]*:[\s*_`]*(.*?)[\s*_`]*$")
_WORD = re.compile(r"[a-z]+")
_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL | re.IGNORECASE)
_SMART = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"'})

YES = frozenset({"yes", "true", "pass", "passed", "fulfilled", "valid"})
NO = frozenset({"no", "false", "fail", "failed", "unfulfilled", "invalid"})


def field_name(text: str) -> str:
    """``"Supporting Excerpt"`` -> ``"supporting_excerpt"``."""
    return re.sub(r"[\s-]+", "_", text.strip().lower())


def parse_field_blocks(
    text: str, fields: Collection[str], starters: Collection[str]
) -> list[dict[str, str]]:
    """The ``Field: value`` blocks of ``text``. Only ``fields`` are read (other lines
    continue the previous value); a block starts at a field of ``starters`` once the
    current block holds another kind of field, or at a field the block already has."""
    blocks: list[dict[str, str]] = []
    current: dict[str, str] = {}
    last: str | None = None
    for line in text.splitlines():
        match = _FIELD_LINE.match(line)
        name = field_name(match.group(1)) if match else ""
        if match and name in fields:
            opens = name in current or (
                name in starters and any(key not in starters for key in current)
            )
            if opens and current:
                blocks.append(current)
                current = {}
            current[name] = match.group(2).strip()
            last = name
        elif last is not None and line.strip():
            current[last] = f"{current[last]}\n{line.strip()}".strip()
    if current:
        blocks.append(current)
    return blocks


def verdict_score(verdict: str | None) -> float | None:
    """1.0 for a yes, 0.0 for a no (by the verdict's first word), else None; None too
    when its first words hold both (``yes|no`` copied from the instructions)."""
    words = _WORD.findall((verdict or "").lower())[:3]
    if not words or (YES & set(words) and NO & set(words)):
        return None
    if words[0] in YES:
        return 1.0
    if words[0] in NO:
        return 0.0
    return None


def json_object(text: str) -> dict[str, Any] | None:
    """The JSON object in ``text`` (inside a code fence or between its outer braces),
    or None when there is none that parses."""
    text = text.translate(_SMART)
    candidates = [m.group(1) for m in _FENCE.finditer(text)] + [text]
    for candidate in candidates:
        start, end = candidate.find("{"), candidate.rfind("}")
        if start < 0 or end <= start:
            continue
        snippet = candidate[start : end + 1]
        for attempt in (snippet, re.sub(r",\s*([}\]])", r"\1", snippet)):
            try:
                value = json.loads(attempt)
            except ValueError:
                continue
            if isinstance(value, dict):
                return value
    return None


def normalize_text(text: str | None) -> str:
    """Text as compared with what a judge copied: Unicode-normalized, plain quotes,
    single spaces, lowercase, without surrounding markdown or bullets."""
    if not text:
        return ""
    text = unicodedata.normalize("NFKC", text).translate(_SMART)
    return re.sub(r"\s+", " ", text).strip(" *_`#>-\u2022\"'").lower()


def excerpt(text: str, limit: int = 300) -> str:
    """The start of ``text`` for an error message."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."
