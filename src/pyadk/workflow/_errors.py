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


class InputAnswerError(WorkflowDataError):
    """A client's answer to a ``RequestInput`` does not fit the input it asked for.
    Nothing ran: the workflow still waits, and the request can be answered again."""


class NodeTimeoutError(Exception):
    """A node ran longer than its ``timeout``.

    An ordinary ``Exception``, so ``RetryConfig`` can retry a node that timed out.
    """

    def __init__(self, *, node_name: str, timeout: float) -> None:
        self.node_name = node_name
        self.timeout = timeout
        super().__init__(f"Node '{node_name}' timed out after {timeout} seconds.")


class DynamicNodeFailError(Exception):
    """Raised by ``ctx.run_node`` when the node it ran failed (after its retries).

    ``error`` is the node's own exception, ``error_node_path`` the path of the node
    that raised it (a node the dynamic node ran in turn, when the failure came from
    deeper down). A node that does not catch it fails with ``error``.
    """

    def __init__(self, *, message: str, error: Exception, error_node_path: str) -> None:
        self.error = error
        self.error_node_path = error_node_path
        super().__init__(message)


class NodeInterruptedError(BaseException):
    """Internal: raised by ``ctx.run_node`` when the node it ran waits for the client.

    A ``BaseException``, so a node's ``except Exception`` does not catch it: the
    calling node stops there and waits too, and runs again once the client answers.
    """
