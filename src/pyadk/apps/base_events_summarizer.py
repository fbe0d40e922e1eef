"""BaseEventsSummarizer: the contract of an events-compaction summarizer."""

from __future__ import annotations

import abc

from pyadk.events.event import Event


class BaseEventsSummarizer(abc.ABC):
    """Summarises a list of events into one compaction event."""

    @abc.abstractmethod
    async def maybe_summarize_events(self, *, events: list[Event]) -> Event | None:
        """A new event whose ``actions.compaction`` summarises ``events`` (their first
        and last timestamps as its range), or None when nothing was summarised."""
