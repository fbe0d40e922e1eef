"""The searchable text of a memory and the search tokens of a query (SqliteMemoryService).

Both sides are normalised the same way: Unicode NFC, words split where a Latin run meets
another script (so "東京tokyo" holds the words "東京" and "tokyo"), then lower-cased.
"""

from __future__ import annotations

import itertools
import re
import unicodedata

from pyadk.events.event import Event

_TOKEN = re.compile(r"[\w%]+")


def event_search_text(event: Event, max_bytes: int) -> str:
    """The normalised text an event is found by ('' if it has none), cut to ``max_bytes``
    of UTF-8: its non-thought text parts, each on one line, joined by spaces."""
    if event.content is None or not event.content.parts:
        return ""
    texts = (
        " ".join(part.text.split("\n")).strip()
        for part in event.content.parts
        if part.text and not part.thought
    )
    text = " ".join(t for t in texts if t)
    if not text:
        return ""
    text = _split_scripts(unicodedata.normalize("NFC", text)).lower()
    encoded = text.encode("utf-8")
    if len(encoded) > max_bytes:
        text = encoded[:max_bytes].decode("utf-8", errors="ignore")
    return text


def query_tokens(query: str) -> list[str]:
    """The distinct lower-cased words of ``query``, in order (``%`` counts as a letter)."""
    normalised = _split_scripts(unicodedata.normalize("NFC", query))
    return list(dict.fromkeys(word.lower() for word in _TOKEN.findall(normalised)))


def fts_match(tokens: list[str]) -> str:
    """An FTS5 MATCH expression for rows holding any of ``tokens`` (each one quoted, so
    query words such as AND, NEAR or ``*`` are plain words)."""
    return " OR ".join('"' + token.replace('"', '""') + '"' for token in tokens)


def like_pattern(token: str) -> str:
    """A ``LIKE ... ESCAPE '\\'`` pattern for text containing ``token``."""
    escaped = token.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def _is_latin(char: str) -> bool:
    if char.isascii():
        return char.isalnum() or char == "_"
    return unicodedata.name(char, "").startswith("LATIN")


def _split_scripts(text: str) -> str:
    # Before lower-casing: "İ".lower() adds a combining mark that is not Latin.
    if text.isascii():
        return text
    pieces: list[str] = []
    for word in text.split():
        if word.isascii():
            pieces.append(word)
        else:
            pieces.extend("".join(run) for _, run in itertools.groupby(word, _is_latin))
    return " ".join(pieces)
