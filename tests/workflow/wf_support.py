"""Helpers of the workflow tests: run a workflow, read its node events."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pyadk import types
from pyadk.events.event import Event
from pyadk.workflow import REQUEST_INPUT_FUNCTION_CALL_NAME, has_output, node_output, node_path


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


def input_requests(events: Sequence[Event]) -> list[types.FunctionCall]:
    """The ``adk_request_input`` calls (``RequestInput``) of the events."""
    return [
        c
        for e in events
        for c in e.get_function_calls()
        if c.name == REQUEST_INPUT_FUNCTION_CALL_NAME
    ]


def answer(request: types.FunctionCall, value: Any) -> types.Content:
    """The user's message answering an input request with ``value``."""
    response = types.FunctionResponse(id=request.id, name=request.name, response={"result": value})
    return types.Content(role="user", parts=[types.Part(function_response=response)])


def pause_records(events: Sequence[Event]) -> list[dict[str, Any]]:
    """The workflow pause records (``custom_metadata["workflow_paused"]``) of the events."""
    return [
        e.custom_metadata["workflow_paused"]
        for e in events
        if e.custom_metadata and "workflow_paused" in e.custom_metadata
    ]
