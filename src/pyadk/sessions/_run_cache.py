"""The decoded events of recently used sessions, so that a turn reads only new events.

A session service keeps, for each session it recently ran a turn on, the events it has
seen (decoded :class:`Event` objects, or, for the SQL services, JSON bodies not decoded
yet) up to a sequence number. Events are immutable once stored and numbered in order,
so such a view stays true: a later turn needs only the events after its sequence
number, which a SQL service's lease claim reads in the same transaction. A view belongs
to one *incarnation* of a session (its row key and creation time): a session deleted
and created again under the same id is a different one.

The cache holds at most ``max_events`` events, each session counting one more (whole
sessions, least recently used evicted first), except that the session used last is
always kept: a turn holds its whole history in memory anyway.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import NamedTuple

from pyadk.events.event import Event

Key = tuple[str, str, str]
"""(app_name, user_id, session_id)."""

Incarnation = tuple[int, float]
"""(row key, creation time) of a session: which session of that id a view is of."""


class View:
    """What a service knows of a session as of ``seq`` stored events.

    A plain class: a dataclass costs about 2M instructions to create at import."""

    __slots__ = ("decoded_upto", "events", "incarnation", "seq", "state", "update_time")

    def __init__(
        self,
        incarnation: Incarnation,
        seq: int,
        update_time: float,
        state: dict[str, str],
        events: list[Event | str] | None = None,
    ) -> None:
        self.incarnation = incarnation
        self.seq = seq
        self.update_time = update_time
        self.state = state
        """Merged state as of ``seq``, each value as JSON text (``app:`` and ``user:``
        keys may have changed since, through other sessions)."""
        self.events: list[Event | str] = [] if events is None else events
        self.decoded_upto = 0
        """``events[:decoded_upto]`` are all decoded."""


class Snapshot(NamedTuple):
    """A view's content at one moment; ``events`` is a new list, ``state`` a new dict."""

    incarnation: Incarnation
    seq: int
    update_time: float
    state: dict[str, str]
    events: list[Event]


class RunCache:
    """Views of recently used sessions, safe to use from several threads."""

    def __init__(self, max_events: int) -> None:
        if max_events < 0:
            raise ValueError(f"The event cache size must be 0 or more, got {max_events}.")
        self.max_events = max_events
        self._views: OrderedDict[Key, View] = OrderedDict()
        self._size = 0
        self._lock = threading.Lock()

    def put(self, key: Key, view: View) -> None:
        """Keeps ``view`` (replacing the key's previous view)."""
        if not self.max_events:
            return
        with self._lock:
            old = self._views.pop(key, None)
            if old is not None:
                self._size -= _weight(old)
            self._views[key] = view
            self._size += _weight(view)
            self._evict()

    def drop(self, key: Key) -> None:
        with self._lock:
            old = self._views.pop(key, None)
            if old is not None:
                self._size -= _weight(old)

    def holds(self, key: Key, incarnation: Incarnation, seen: int) -> bool:
        """True when the key's view is of that incarnation and has seen ``seen`` events:
        :meth:`extend` would add to it. A hint read without the lock (``extend`` checks
        again under it): the caller may skip building events for a view that is gone."""
        view = self._views.get(key)
        return view is not None and view.incarnation == incarnation and view.seq == seen

    def extend(
        self,
        key: Key,
        incarnation: Incarnation,
        seen: int,
        events: list[Event | str],
        *,
        update_time: float,
        state: dict[str, str] | None = None,
        replace_state: bool = False,
    ) -> None:
        """Adds ``events``, stored after the first ``seen`` ones, to the key's view,
        provided the view is of that incarnation and has seen exactly ``seen`` events
        (else the view is left behind, and brought up to date by the next turn).
        ``state`` updates the view's state (or replaces it with ``replace_state``)."""
        with self._lock:
            view = self._views.get(key)
            if view is None or view.incarnation != incarnation or view.seq != seen:
                return
            view.events.extend(events)
            view.seq += len(events)
            view.update_time = update_time
            if state is not None:
                if replace_state:
                    view.state = dict(state)
                else:
                    view.state.update(state)
            self._size += len(events)
            self._views.move_to_end(key)
            self._evict()

    def snapshot(self, key: Key) -> Snapshot | None:
        """The key's view, its events decoded (once: those still JSON are replaced)."""
        with self._lock:
            view = self._views.get(key)
            if view is None:
                return None
            self._views.move_to_end(key)
            events = view.events
            for i in range(view.decoded_upto, len(events)):
                event = events[i]
                if isinstance(event, str):
                    events[i] = Event.model_validate_json(event)
            view.decoded_upto = len(events)
            decoded: list[Event] = list(events)  # type: ignore[arg-type]
            return Snapshot(view.incarnation, view.seq, view.update_time, dict(view.state), decoded)

    def _evict(self) -> None:
        while self._size > self.max_events and len(self._views) > 1:
            _, view = self._views.popitem(last=False)
            self._size -= _weight(view)


def _weight(view: View) -> int:
    """What a view counts against ``max_events``: its events, and one for itself."""
    return len(view.events) + 1
