"""InMemoryMemoryService: keyword-matched memory kept in process memory (tests, demos)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from typing import NamedTuple

from pyadk import types
from pyadk.events.event import Event
from pyadk.memory.base_memory_service import BaseMemoryService, MemoryEntry, SearchMemoryResponse
from pyadk.sessions.session import Session

UNKNOWN_SESSION_ID = "__unknown_session_id__"
"""Where events added without a session id are kept (google-adk's key)."""

_WORD = re.compile(r"[A-Za-z0-9']+")


def _words(text: str) -> frozenset[str]:
    """The lower-cased words of ``text``; quotes around a word are not part of it."""
    words = (m.group().strip("'").lower() for m in _WORD.finditer(text))
    return frozenset(w for w in words if w)


class _Memory(NamedTuple):
    id: str
    content: types.Content
    author: str
    timestamp: float
    words: frozenset[str]


class InMemoryMemoryService(BaseMemoryService):
    """Remembers the text events of sessions and finds them by shared words.

    A search returns the entries of the same app and user whose text has at least one
    word of the query (case-insensitive), those with more matching words first, then
    the most recent. Adding a session again replaces what was stored for it;
    :meth:`add_events_to_memory` adds events it has not seen (by event id), and
    :meth:`delete_memory` forgets one for good (adding it again does not restore it).
    """

    def __init__(self) -> None:
        self._sessions: dict[tuple[str, str], dict[str, list[_Memory]]] = {}
        self._deleted: dict[tuple[str, str], set[str]] = {}

    async def add_session_to_memory(self, session: Session) -> None:
        key = (session.app_name, session.user_id)
        self._sessions.setdefault(key, {})[session.id] = self._memories(key, session.events)

    async def add_events_to_memory(
        self,
        *,
        app_name: str,
        user_id: str,
        events: Sequence[Event],
        session_id: str | None = None,
        custom_metadata: Mapping[str, object] | None = None,
    ) -> None:
        """Adds the text events not yet remembered (by id) to the session's memories
        (``session_id`` None: kept apart, under google-adk's unknown-session key)."""
        key = (app_name, user_id)
        memories = self._sessions.setdefault(key, {}).setdefault(
            session_id or UNKNOWN_SESSION_ID, []
        )
        seen = {memory.id for memory in memories}
        memories.extend(m for m in self._memories(key, events) if m.id not in seen)

    async def delete_memory(
        self, *, app_name: str, user_id: str, memory_id: str | None = None
    ) -> None:
        """Forgets the memory whose ``MemoryEntry.id`` is ``memory_id`` (None: nothing)."""
        if not memory_id:
            return
        key = (app_name, user_id)
        for session_id, memories in self._sessions.get(key, {}).items():
            kept = [memory for memory in memories if memory.id != memory_id]
            if len(kept) != len(memories):
                self._sessions[key][session_id] = kept
                self._deleted.setdefault(key, set()).add(memory_id)

    def _memories(self, key: tuple[str, str], events: Iterable[Event]) -> list[_Memory]:
        deleted = self._deleted.get(key, ())
        return [
            _Memory(
                id=event.id,
                content=event.content.model_copy(deep=True),
                author=event.author,
                timestamp=event.timestamp,
                words=_words(text),
            )
            for event in events
            if event.content is not None
            and not event.partial
            and event.id not in deleted
            and (text := event.content.text)
        ]

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
                    id=memory.id,
                    content=memory.content.model_copy(deep=True),
                    author=memory.author,
                    timestamp=datetime.fromtimestamp(memory.timestamp, tz=UTC).isoformat(),
                )
                for _, _, memory in scored
            ]
        )
