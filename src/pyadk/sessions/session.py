"""Session: one conversation of one user with one app."""

import time
from typing import Any

from pydantic import Field

from pyadk.events.event import Event
from pyadk.types import _Base


class Session(_Base):
    """A conversation: its events in order and the state folded from their deltas.

    A session returned by a session service is a snapshot: to change state, write
    ``ctx.state[...]`` from a callback or tool (or append an event with a state delta).
    """

    id: str
    app_name: str
    user_id: str
    state: dict[str, Any] = Field(default_factory=dict)
    events: list[Event] = Field(default_factory=list)
    last_update_time: float = Field(default_factory=time.time)
