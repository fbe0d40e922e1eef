"""Node (a class to subclass) and the ``@node`` decorator."""

from __future__ import annotations

from collections.abc import AsyncGenerator, Callable
from typing import TYPE_CHECKING, Any, Literal

from pyadk.workflow._base_node import BaseNode
from pyadk.workflow._errors import WorkflowConfigurationError
from pyadk.workflow._function_node import FunctionNode
from pyadk.workflow._graph_parser import build_node
from pyadk.workflow._parallel_worker import ParallelWorker
from pyadk.workflow._retry_config import RetryConfig

if TYPE_CHECKING:
    from pyadk.auth.auth_tool import AuthConfig
    from pyadk.workflow._context import Context

_GATES = ("auth_config", "require_confirmation", "parameter_binding")


class Node(BaseNode):
    """A node to subclass: implement :meth:`run_node_impl` (an async generator).

    With ``parallel_worker=True`` the node runs once per item of its list input
    (see :class:`ParallelWorker`), at most ``max_parallel_workers`` at a time.
    """

    parallel_worker: bool = False
    max_parallel_workers: int | None = None

    def model_post_init(self, __context: Any) -> None:
        _check_workers(self.parallel_worker, self.max_parallel_workers)

    async def run_node_impl(self, *, ctx: Context, node_input: Any) -> AsyncGenerator[Any, None]:
        """The node's behaviour: yields outputs and/or events."""
        raise NotImplementedError("run_node_impl must be implemented.")
        yield  # pragma: no cover

    async def _run_impl(self, *, ctx: Context, node_input: Any) -> AsyncGenerator[Any, None]:
        async for item in self.run_node_impl(ctx=ctx, node_input=node_input):
            yield item


def node(
    node_like: Any = None,
    *,
    name: str | None = None,
    retry_config: RetryConfig | None = None,
    timeout: float | None = None,
    parallel_worker: bool = False,
    max_parallel_workers: int | None = None,
    rerun_on_resume: bool | None = None,
    auth_config: AuthConfig | None = None,
    require_confirmation: bool | Callable[..., Any] | None = None,
    parameter_binding: Literal["state", "node_input"] = "state",
) -> Any:
    """Makes a node of a function (or agent, or node), optionally renamed or with
    ``retry_config`` / ``timeout`` / ``rerun_on_resume``; ``parallel_worker=True``
    runs it once per item of its list input (:class:`ParallelWorker`).

    For a function (or a :class:`FunctionNode`): ``require_confirmation`` asks the
    client to approve each call (``rerun_on_resume`` then defaults to True),
    ``auth_config`` asks for the end user's credential (needs
    ``rerun_on_resume=True``), ``parameter_binding="node_input"`` fills the
    parameters from a dict node input (see :class:`FunctionNode`).

    Use as ``@node``, ``@node(...)`` or ``node(func_or_agent, name=...)``. A node
    given here is copied, so the original keeps its settings.
    """
    _check_workers(parallel_worker, max_parallel_workers)
    if node_like is None:

        def decorate(func: Callable[..., Any]) -> BaseNode:
            return node(
                func,
                name=name,
                retry_config=retry_config,
                timeout=timeout,
                parallel_worker=parallel_worker,
                max_parallel_workers=max_parallel_workers,
                rerun_on_resume=rerun_on_resume,
                auth_config=auth_config,
                require_confirmation=require_confirmation,
                parameter_binding=parameter_binding,
            )

        return decorate
    update: dict[str, Any] = {}
    if name is not None:
        update["name"] = name
    if retry_config is not None:
        update["retry_config"] = retry_config
    if timeout is not None:
        update["timeout"] = timeout
    if rerun_on_resume is not None:
        update["rerun_on_resume"] = rerun_on_resume
    gates: dict[str, Any] = {}
    if auth_config is not None:
        gates["auth_config"] = auth_config
    if require_confirmation is not None:
        gates["require_confirmation"] = require_confirmation
        if require_confirmation is not False and rerun_on_resume is None:
            update["rerun_on_resume"] = True  # it runs again once the client answers
    if parameter_binding != "state":
        gates["parameter_binding"] = parameter_binding
    if _is_plain_callable(node_like):  # named here: a lambda has no usable name
        built: BaseNode = FunctionNode(node_like, **update, **gates)
    else:
        built = build_node(node_like)
        if not isinstance(built, FunctionNode):
            given = sorted(k for k, v in gates.items() if v is not False)
            if given:
                raise WorkflowConfigurationError(
                    f"node(): {', '.join(given)} only apply to a function (or FunctionNode), "
                    f"not to {type(built).__name__} {built.name!r}." + _gate_hint(built)
                )
            gates.clear()
        if update or gates:
            built = type(built)(**{**dict(built), **update, **gates})
    if parallel_worker:
        return ParallelWorker(node=built, max_parallel_workers=max_parallel_workers)
    return built


def _gate_hint(built: BaseNode) -> str:
    from pyadk.workflow._tool_node import ToolNode

    if isinstance(built, ToolNode):
        return " A tool asks for approval with FunctionTool(..., require_confirmation=...)."
    return ""


def _is_plain_callable(value: Any) -> bool:
    from pyadk.agents.base_agent import BaseAgent
    from pyadk.tools.base_tool import BaseTool

    return (
        callable(value)
        and not isinstance(value, (BaseNode, BaseAgent, BaseTool, type))
        and value != "START"
    )


def _check_workers(parallel_worker: bool, max_parallel_workers: int | None) -> None:
    if max_parallel_workers is None:
        return
    if not parallel_worker:
        raise WorkflowConfigurationError(
            "max_parallel_workers can only be set when parallel_worker is True."
        )
    if max_parallel_workers < 1:
        raise WorkflowConfigurationError("max_parallel_workers must be at least 1.")
