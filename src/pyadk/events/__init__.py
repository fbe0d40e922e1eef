"""Events and the actions they carry."""

from pyadk.events.event import Event
from pyadk.events.event_actions import EventActions

__all__ = ["Event", "EventActions"]
