"""EventCompaction: the summary that stands in for a range of a session's events."""

from pyadk import types
from pyadk.types import _Base


class EventCompaction(_Base):
    """A summary of the session's events whose timestamps lie in ``[start, end]``.

    Carried by ``EventActions.compaction`` of a compaction event (written by the
    runner when an app has an ``EventsCompactionConfig``). When the model's history
    is built, the events of the range are left out and ``compacted_content`` (role
    ``model``) is shown in their place.
    """

    start_timestamp: float | None = None
    """Timestamp of the first event summarised."""
    end_timestamp: float | None = None
    """Timestamp of the last event summarised."""
    compacted_content: types.Content | None = None
    """The summary."""
