"""InMemoryMemoryService: keyword-matched memory kept in process memory (tests, demos)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime

from pyadk import types
from pyadk.memory.base_memory_service import BaseMemoryService, MemoryEntry, SearchMemoryResponse
from pyadk.sessions.session import Session

_WORD = re.compile(r"[A-Za-z0-9']+")


def _words(text: str) -> frozenset[str]:
    """The lower-cased words of ``text``; quotes around a word are not part of it."""
    words = (m.group().strip("'").lower() for m in _WORD.finditer(text))
    return frozenset(w for w in words if w)


@dataclass(frozen=True)
class _Memory:
    content: types.Content
    author: str
    timestamp: float
    words: frozenset[str]


class InMemoryMemoryService(BaseMemoryService):
    """Remembers the text events of sessions and finds them by shared words.

    A search returns the entries of the same app and user whose text has at least one
    word of the query (case-insensitive), those with more matching words first, then
    the most recent. Adding a session again replaces what was stored for it.
    """

    def __init__(self) -> None:
        self._sessions: dict[tuple[str, str], dict[str, list[_Memory]]] = {}

    async def add_session_to_memory(self, session: Session) -> None:
        memories = [
            _Memory(
                content=event.content.model_copy(deep=True),
                author=event.author,
                timestamp=event.timestamp,
                words=_words(text),
            )
            for event in session.events
            if event.content is not None and not event.partial and (text := event.content.text)
        ]
        self._sessions.setdefault((session.app_name, session.user_id), {})[session.id] = memories

    async def search_memory(
        self, *, app_name: str, user_id: str, query: str
    ) -> SearchMemoryResponse:
        query_words = _words(query)
        if not query_words:
            return SearchMemoryResponse()
        scored: list[tuple[int, float, _Memory]] = []
        for memories in self._sessions.get((app_name, user_id), {}).values():
            for memory in memories:
                matches = len(query_words & memory.words)
                if matches:
                    scored.append((matches, memory.timestamp, memory))
        scored.sort(key=lambda item: (item[0], item[1]), reverse=True)
        return SearchMemoryResponse(
            memories=[
                MemoryEntry(
                    content=memory.content.model_copy(deep=True),
                    author=memory.author,
                    timestamp=datetime.fromtimestamp(memory.timestamp, tz=UTC).isoformat(),
                )
                for _, _, memory in scored
            ]
        )
