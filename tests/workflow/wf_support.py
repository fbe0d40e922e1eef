"""Helpers of the workflow tests: run a workflow, read its node events."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pyadk.events.event import Event
from pyadk.workflow import has_output, node_output, node_path


def outputs(events: Sequence[Event]) -> list[tuple[str, Any]]:
    """(node name, output) of every event that records a node output, in order."""
    found = []
    for event in events:
        if has_output(event):
            path = node_path(event) or ""
            found.append((path.rsplit("/", 1)[-1].split("@")[0], node_output(event)))
    return found


def paths(events: Sequence[Event]) -> list[str]:
    """The node paths of the events that have one."""
    return [p for e in events if (p := node_path(e)) is not None]
