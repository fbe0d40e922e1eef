"""Errors of graph workflows: bad declarations, bad run data, node timeouts."""

from __future__ import annotations


class WorkflowConfigurationError(ValueError):
    """A workflow, node or edge is declared in a way that cannot run.

    Raised when the declaration is built, before anything runs (except the
    "several terminal outputs" check, which needs a run to find out).
    """


class GraphValidationError(WorkflowConfigurationError):
    """The graph built from a workflow's edges is not well formed."""


class WorkflowDataError(ValueError):
    """Data met during a run does not fit the node receiving it (e.g. a missing
    state value for a function parameter)."""


class NodeTimeoutError(Exception):
    """A node ran longer than its ``timeout``.

    An ordinary ``Exception``, so ``RetryConfig`` can retry a node that timed out.
    """

    def __init__(self, *, node_name: str, timeout: float) -> None:
        self.node_name = node_name
        self.timeout = timeout
        super().__init__(f"Node '{node_name}' timed out after {timeout} seconds.")
