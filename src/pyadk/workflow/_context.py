"""Context: what a running node can read and change."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from pyadk.agents.callback_context import CallbackContext

if TYPE_CHECKING:
    from pyadk.agents.invocation_context import InvocationContext
    from pyadk.events.tool_confirmation import ToolConfirmation
    from pyadk.workflow._dynamic_nodes import DynamicScope

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
        self.tool_confirmation: ToolConfirmation | None = None
        """The user's answer to the approval a function node with
        ``require_confirmation`` asked for (None otherwise)."""
        self._resuming = resuming
        self._resume_inputs = dict(resume_inputs or {})
        self._route: RouteValue | list[RouteValue] | None = None
        self._route_sent = False
        self._dynamic: DynamicScope | None = None
        self._interrupts: set[str] = set()
        """The calls the dynamic nodes it ran wait on."""
        self._output_delegated = False
        self._delegated_output: tuple[Any] | None = None
        self._task: asyncio.Task[Any] | None = None
        """The task running the node's body (set while it runs)."""
        self._side_tasks: set[asyncio.Task[Any]] = set()
        """Other tasks that called ``run_node`` (``asyncio.create_task``, ``gather``)."""

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

    async def run_node(
        self,
        node: Any,
        node_input: Any = None,
        *,
        use_as_output: bool = False,
        run_id: str | None = None,
        use_sub_branch: bool = False,
        override_branch: str | None = None,
        override_isolation_scope: str | None = None,
        raise_on_wait: bool = False,
    ) -> Any:
        """Runs ``node`` (a node, function, agent, workflow or tool) now, as a child of
        this node, and returns its output (None when it has none).

        The child runs as ``<this node's path>/<name>@<n>`` (``n`` counts its runs
        under this node, or ``run_id``: not all digits) in this node's branch (its own
        sub-branch ``<name>@<n>`` with ``use_sub_branch``, as an agent or workflow
        always does, or ``override_branch``), with its own ``retry_config`` and
        ``timeout``; its events and state changes are written as it runs. With
        ``use_as_output`` its output is this node's output too (written once, by the
        child).

        A child that fails (after its retries) raises :class:`DynamicNodeFailError`
        (its ``error`` is the child's exception; uncaught, this node fails with it).
        A child that waits for the client makes this node wait too: the node stops
        there and runs again when the client answers; its children that had finished
        are not run again (``run_node`` returns their output), the waiting one goes
        on with the answer. Always ``await`` it (several at once with
        ``asyncio.gather``). A call in a task the node never awaits (``create_task``)
        is waited for when the node's body ends: its failure fails the node (as
        google-adk fails the workflow), instead of being lost.
        ``override_isolation_scope`` and ``raise_on_wait`` are accepted for google-adk
        compatibility: a waiting child always stops the caller.
        """
        scope = self._dynamic
        if scope is None:
            from pyadk.workflow._errors import WorkflowConfigurationError

            raise WorkflowConfigurationError(
                "ctx.run_node can only be called by a node running in a Workflow."
            )
        current = asyncio.current_task()
        if current is not None and self._task is not None and current is not self._task:
            self._side_tasks.add(current)
        return await scope.runs.run(
            self,
            scope,
            node,
            node_input,
            use_as_output=use_as_output,
            run_id=run_id,
            use_sub_branch=use_sub_branch,
            override_branch=override_branch,
        )
