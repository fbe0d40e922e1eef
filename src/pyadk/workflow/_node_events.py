"""The events a workflow writes for its nodes, and reading them back.

pyadk's :class:`~pyadk.events.Event` has no ``output`` / ``route`` / ``node_info``
fields (google-adk 2.x added them); a node's event keeps them in
``custom_metadata`` under those names, which :func:`node_output`,
:func:`node_route` and :func:`node_path` read.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pyadk.events.event import Event
from pyadk.events.event_actions import EventActions

if TYPE_CHECKING:
    from pyadk.agents.invocation_context import InvocationContext

NODE_INFO = "node_info"
OUTPUT = "output"
ROUTE = "route"
ERROR = "error"


def node_output(event: Event) -> Any:
    """The node output an event carries (None when it carries none)."""
    metadata = event.custom_metadata
    return None if metadata is None else metadata.get(OUTPUT)


def node_route(event: Event) -> Any:
    """The route a node's event took (None when it took none)."""
    metadata = event.custom_metadata
    return None if metadata is None else metadata.get(ROUTE)


def node_path(event: Event) -> str | None:
    """The path (``wf@1/node@1``) of the node that wrote ``event``, if any."""
    metadata = event.custom_metadata
    info = None if metadata is None else metadata.get(NODE_INFO)
    return info.get("path") if isinstance(info, dict) else None


def has_output(event: Event) -> bool:
    """True when ``event`` records a node output."""
    metadata = event.custom_metadata
    return metadata is not None and OUTPUT in metadata


def node_event(
    ic: InvocationContext,
    *,
    author: str,
    path: str,
    actions: EventActions,
    output: Any = None,
    with_output: bool = False,
    route: Any = None,
    output_for: list[str] | None = None,
) -> Event:
    """An event of node ``path``: output, route and state changes."""
    info: dict[str, Any] = {"path": path}
    if output_for:
        info["output_for"] = output_for
    metadata: dict[str, Any] = {NODE_INFO: info}
    if with_output:
        metadata[OUTPUT] = output
    if route is not None:
        metadata[ROUTE] = route
    return Event(
        invocation_id=ic.invocation_id,
        author=author,
        branch=ic.branch,
        actions=actions,
        custom_metadata=metadata,
    )


def error_event(
    ic: InvocationContext,
    *,
    author: str,
    path: str,
    error: BaseException,
    attempt: int,
    retrying: bool,
    final: bool | None = None,
    origin: str | None = None,
) -> Event:
    """The event recording that attempt ``attempt`` of a node failed with ``error``.

    The failure that ends the node (``final``; by default when not ``retrying``) sets
    ``error_code`` / ``error_message``; other failures (an attempt that will be
    retried, a dynamic node's failure its caller may still catch) only record
    ``custom_metadata["error"]``, so a run that recovers is not taken for a failed
    one. ``origin``: the path of the dynamic node that raised ``error``.
    """
    message = str(error) or type(error).__name__
    metadata: dict[str, Any] = {
        NODE_INFO: {"path": path},
        ERROR: {"type": type(error).__name__, "message": message, "attempt": attempt},
    }
    if retrying:
        metadata[ERROR]["retrying"] = True
    if origin is not None:
        metadata[ERROR]["node_path"] = origin
    if not (not retrying if final is None else final):
        return Event(
            invocation_id=ic.invocation_id,
            author=author,
            branch=ic.branch,
            custom_metadata=metadata,
        )
    return Event(
        invocation_id=ic.invocation_id,
        author=author,
        branch=ic.branch,
        error_code=type(error).__name__,
        error_message=message,
        custom_metadata=metadata,
    )
