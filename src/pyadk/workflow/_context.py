"""Context: what a running node can read and change."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pyadk.agents.callback_context import CallbackContext

if TYPE_CHECKING:
    from pyadk.agents.invocation_context import InvocationContext

RouteValue = bool | int | str
"""A value that selects routed edges."""


class Context(CallbackContext):
    """The ``ctx`` a node receives.

    Like a callback context: writable ``state`` (saved with the node's event),
    artifacts, ids. In addition it names the node (``node_name``, ``node_path``
    such as ``wf@1/step@2``, ``run_id``) and lets the node pick its outgoing
    edges by setting ``route``.
    """

    def __init__(
        self,
        invocation_context: InvocationContext,
        *,
        node_name: str,
        node_path: str,
        run_id: str,
        resuming: bool = False,
        resume_inputs: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(invocation_context)
        self.node_name = node_name
        self.node_path = node_path
        self.run_id = run_id
        self._resuming = resuming
        self._resume_inputs = dict(resume_inputs or {})
        self._route: RouteValue | list[RouteValue] | None = None
        self._route_sent = False

    @property
    def branch(self) -> str | None:
        """The branch the node runs in (None at the root)."""
        return self._invocation_context.branch

    @property
    def resuming(self) -> bool:
        """True when this run goes on after a pause (the client answered)."""
        return self._resuming

    @property
    def resume_inputs(self) -> dict[str, Any]:
        """The client's answers to this node's ``RequestInput`` s, by interrupt id
        (for a node rerun on resume)."""
        return self._resume_inputs

    @property
    def route(self) -> RouteValue | list[RouteValue] | None:
        """The route(s) this node took so far (None: follow the unrouted edges)."""
        return self._route

    @route.setter
    def route(self, value: RouteValue | list[RouteValue]) -> None:
        self._route = value
        self._route_sent = False

    async def run_node(self, *args: Any, **kwargs: Any) -> Any:
        """Dynamic nodes are not built in pyadk: declare the node in the graph."""
        raise NotImplementedError(
            "ctx.run_node (dynamic nodes) is not supported by pyadk's Workflow; "
            "declare the node with an edge instead."
        )
