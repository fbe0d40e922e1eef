"""BaseNode: one step of a workflow graph, and the START marker."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from pyadk.workflow._errors import WorkflowConfigurationError
from pyadk.workflow._retry_config import RetryConfig

if TYPE_CHECKING:
    from pyadk.workflow._context import Context


class BaseNode(BaseModel):
    """A node of a workflow graph. Subclasses implement :meth:`_run_impl`.

    ``_run_impl(ctx=, node_input=)`` is an async generator. A value it yields is the
    node's output, passed to the next nodes (None is ignored; a second output fails
    the node). A yielded :class:`pyadk.events.Event` is passed on to the session as
    is. ``ctx.route`` picks routed edges; ``ctx.state`` writes
    are saved with the node's event.

    ``retry_config`` retries a failed run; ``timeout`` (seconds) fails a run that
    takes longer with :class:`NodeTimeoutError` (retried like any failure).
    """

    model_config = ConfigDict(arbitrary_types_allowed=True, extra="forbid")

    name: str
    """Unique name of the node in its graph: a Python identifier."""
    description: str = ""
    retry_config: RetryConfig | None = None
    """Runs the node again when it fails (None: no retry)."""
    timeout: float | None = Field(default=None, gt=0)
    """Seconds a run may take before it fails with NodeTimeoutError (None: no limit)."""
    rerun_on_resume: bool = False
    """After the client answers a ``RequestInput`` of the node, run the node again
    (the answers in ``ctx.resume_inputs``) instead of taking the answer as its output."""

    @field_validator("name")
    @classmethod
    def _validate_name(cls, value: str) -> str:
        if not value.isidentifier():
            raise WorkflowConfigurationError(
                f"Node name {value!r} must be a valid Python identifier."
            )
        return value

    @property
    def _requires_all_predecessors(self) -> bool:
        """True for nodes that run once every predecessor finished (joins)."""
        return False

    async def _run_impl(self, *, ctx: Context, node_input: Any) -> AsyncGenerator[Any, None]:
        """The node's behaviour: yields outputs and/or events."""
        raise NotImplementedError(f"_run_impl for {type(self).__name__} is not implemented.")
        yield  # pragma: no cover


START = BaseNode.model_construct(name="__START__")
"""Marks where a workflow begins: the first element of the first edge(s).

Never runs. The nodes after it receive the workflow's input (the user message
at the root of a run, the predecessor's output when nested in a workflow)."""


def is_start(node: object) -> bool:
    """True for START (the object or the string ``"START"``)."""
    return node is START or node == "START"
