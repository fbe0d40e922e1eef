"""A cache of built histories, so a long session's history is not rebuilt every step."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyadk import types
    from pyadk.events.event import Event


class CachedHistory:
    """The history built from the first ``count`` events of a session."""

    __slots__ = ("compacted_until", "contents", "count", "last_event_id", "last_visible")

    def __init__(
        self,
        *,
        count: int = 0,
        contents: list[types.Content] | None = None,
        compacted_until: float | None = None,
    ) -> None:
        self.count = count
        self.last_event_id: str | None = None
        self.last_visible: Event | None = None
        self.contents: list[types.Content] = [] if contents is None else contents
        self.compacted_until = compacted_until
        """The latest timestamp a summary in ``contents`` covers (None: no summaries)."""

    def continues(self, events: Sequence[Event]) -> bool:
        """True when ``events`` starts with the events this history was built from."""
        if self.count > len(events):
            return False
        return self.count == 0 or events[self.count - 1].id == self.last_event_id

    def extends_with(self, new_events: Sequence[Event]) -> bool:
        """True when appending ``new_events`` leaves the built history as it is: none is
        a compaction event, or an event a summary in it covers."""
        until = self.compacted_until
        for event in new_events:
            if event.actions.compaction is not None or (
                until is not None and event.timestamp <= until
            ):
                return False
        return True


class HistoryCache:
    """A small LRU of :class:`CachedHistory` by (session, agent, branch).

    Sessions are append-only, so a history stays valid while the event it ended at
    is still at the same position; only the events after it need converting. Bounded by
    entries and by the contents they hold together (the latest entry is always kept), so
    many long idle sessions do not stay in memory through it.
    """

    def __init__(self, max_entries: int = 512, max_contents: int = 2_000) -> None:
        self._entries: OrderedDict[Hashable, CachedHistory] = OrderedDict()
        self._sizes: dict[Hashable, int] = {}
        self._total = 0
        self._max_entries = max_entries
        self._max_contents = max_contents

    def get(self, key: Hashable) -> CachedHistory | None:
        entry = self._entries.get(key)
        if entry is not None:
            self._entries.move_to_end(key)
        return entry

    def put(self, key: Hashable, entry: CachedHistory) -> None:
        self._entries[key] = entry
        self._entries.move_to_end(key)
        self.grew(key, entry)

    def grew(self, key: Hashable, entry: CachedHistory) -> None:
        """Accounts for contents added to ``entry`` in place; evicts what is over the bounds."""
        size = len(entry.contents)
        self._total += size - self._sizes.get(key, 0)
        self._sizes[key] = size
        while len(self._entries) > 1 and (
            len(self._entries) > self._max_entries or self._total > self._max_contents
        ):
            evicted, _ = self._entries.popitem(last=False)
            self._total -= self._sizes.pop(evicted, 0)

    def clear(self) -> None:
        self._entries.clear()
        self._sizes.clear()
        self._total = 0
