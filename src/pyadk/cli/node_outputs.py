"""Graph workflow node outputs in `pyadk run`: a node's output rides on an event without
content (in its ``custom_metadata``), so it is shown from there: each node's output on
its own line, the workflow's own output as the workflow's answer."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pyadk import types
from pyadk.events.event import Event

_OUTPUT = "output"
_NODE_INFO = "node_info"


@dataclass
class NodeOutput:
    """What a node's output event shows: the node's name, the output as text, and
    whether it is the output of a top-level workflow (its answer)."""

    node: str
    text: str
    final: bool


def node_output(event: Event, shown: Any) -> NodeOutput | None:
    """The output ``event`` carries (None: none, or the event's content shows it);
    ``shown`` formats a non-text value on one line."""
    metadata = event.custom_metadata
    if event.content is not None or not metadata or _OUTPUT not in metadata:
        return None
    value = metadata[_OUTPUT]
    if value is None:
        return None
    info = metadata.get(_NODE_INFO)
    info = info if isinstance(info, dict) else {}
    path = info.get("path")
    node = str(path).rsplit("/", 1)[-1].split("@", 1)[0] if path else event.author
    output_for = info.get("output_for")
    final = isinstance(output_for, list) and any("/" not in str(p) for p in output_for)
    return NodeOutput(node=node, text=_text(value, shown), final=final)


def _text(value: Any, shown: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, dict) and "parts" in value and set(value) <= {"role", "parts"}:
        try:  # a Content output, read back from JSON
            value = types.Content.model_validate(value)
        except ValueError:
            pass
    if isinstance(value, types.Content):
        return "".join(p.text for p in value.parts or [] if p.text and not p.thought)
    return str(shown(value))
