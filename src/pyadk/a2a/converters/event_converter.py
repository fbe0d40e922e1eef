"""Event conversion in both directions, under the names google-adk exports."""

from __future__ import annotations

from pyadk.a2a.converters._from_adk import (
    DEFAULT_ERROR_MESSAGE,
    A2AEvent,
    AdkEventToA2AEventsConverter,
    convert_event_to_a2a_events,
    convert_event_to_a2a_message,
)
from pyadk.a2a.converters._to_adk import (
    convert_a2a_message_to_event,
    convert_a2a_task_to_event,
)

__all__ = [
    "DEFAULT_ERROR_MESSAGE",
    "A2AEvent",
    "AdkEventToA2AEventsConverter",
    "convert_a2a_message_to_event",
    "convert_a2a_task_to_event",
    "convert_event_to_a2a_events",
    "convert_event_to_a2a_message",
]
