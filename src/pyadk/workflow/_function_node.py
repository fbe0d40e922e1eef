"""FunctionNode: a plain Python function as a workflow node."""

from __future__ import annotations

import inspect
from collections.abc import AsyncGenerator, Callable
from typing import Any, get_type_hints

from pydantic import BaseModel, PrivateAttr

from pyadk.utils.tool_thread_pool import run_in_tool_pool
from pyadk.workflow._base_node import BaseNode
from pyadk.workflow._coercion import Coercer
from pyadk.workflow._context import Context
from pyadk.workflow._errors import WorkflowConfigurationError, WorkflowDataError

_CONTEXT_NAME = "ctx"
_INPUT_NAME = "node_input"


class FunctionNode(BaseNode):
    """Runs ``func`` (sync or async, function or generator) as a node.

    Parameters are filled by name: ``ctx`` (or any parameter annotated
    :class:`Context`) gets the node context, ``node_input`` the predecessor's
    output, every other parameter the session-state value of the same name (its
    default when state lacks it; a missing value without default fails the node
    with :class:`WorkflowDataError`). Values are validated against the
    annotations (pydantic, lax): a dict becomes the annotated model; a message
    (the user's, after START) becomes its text for ``str``, parsed JSON for
    structured types, and stays a Content for ``Content`` / ``Any``.

    The return value is the node's output; a pydantic model is stored as its
    dict; None means no output. A generator may yield events
    (:class:`pyadk.events.Event`) and at most one output.
    """

    func: Callable[..., Any]
    _signature: inspect.Signature = PrivateAttr()
    _hints: dict[str, Any] = PrivateAttr(default_factory=dict)
    _context_param: str | None = PrivateAttr(default=None)
    _coercer: Coercer = PrivateAttr(default_factory=Coercer)

    def __init__(self, func: Callable[..., Any] | None = None, **data: Any) -> None:
        if func is not None:
            data["func"] = func
        target = data.get("func")
        if not callable(target):
            raise WorkflowConfigurationError(f"FunctionNode needs a callable, got {target!r}.")
        data.setdefault("name", getattr(target, "__name__", type(target).__name__))
        super().__init__(**data)

    def model_post_init(self, __context: Any) -> None:
        self._signature = inspect.signature(self.func)
        self._hints = _hints(self.func, self._signature)
        for name, param in self._signature.parameters.items():
            hint = self._hints.get(name, param.annotation)
            if name == _CONTEXT_NAME or hint is Context or hint == "Context":
                self._context_param = name
                break

    def _bind(self, ctx: Context, node_input: Any) -> dict[str, Any]:
        kwargs: dict[str, Any] = {}
        state = ctx.state
        for name, param in self._signature.parameters.items():
            if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
                continue
            if name == self._context_param:
                kwargs[name] = ctx
            elif name == _INPUT_NAME:
                kwargs[name] = self._coerce(name, node_input)
            elif name in state:
                kwargs[name] = self._coerce(name, state[name])
            elif param.default is not param.empty:
                kwargs[name] = param.default
            else:
                raise WorkflowDataError(
                    f"Missing value for parameter {name!r} of node {self.name!r}: it is "
                    "not in session state and has no default."
                )
        return kwargs

    def _coerce(self, name: str, value: Any) -> Any:
        try:
            return self._coercer(value, self._hints.get(name))
        except Exception as error:
            raise WorkflowDataError(
                f"Parameter {name!r} of node {self.name!r} does not accept {value!r}: {error}"
            ) from error

    async def _run_impl(self, *, ctx: Context, node_input: Any) -> AsyncGenerator[Any, None]:
        kwargs = self._bind(ctx, node_input)
        func = self.func
        if inspect.isasyncgenfunction(func):
            async for item in func(**kwargs):
                yield _as_output(item)
        elif inspect.isgeneratorfunction(func):
            for item in func(**kwargs):
                yield _as_output(item)
        else:
            pool = ctx._invocation_context.run_config.tool_thread_pool_config
            if pool is not None and not inspect.iscoroutinefunction(func):
                result = await run_in_tool_pool(pool, func, **kwargs)
            else:
                result = func(**kwargs)
            if inspect.isawaitable(result):
                result = await result
            yield _as_output(result)


def _hints(func: Callable[..., Any], signature: inspect.Signature) -> dict[str, Any]:
    """The parameters' resolved annotations (one that cannot be resolved is left out)."""
    try:
        return get_type_hints(func)
    except Exception:
        pass
    namespace = getattr(func, "__globals__", {})
    hints: dict[str, Any] = {}
    for name, param in signature.parameters.items():
        annotation = param.annotation
        if isinstance(annotation, str):
            try:
                annotation = eval(annotation, namespace)  # the function's own hint
            except Exception:
                continue
        if annotation is not param.empty:
            hints[name] = annotation
    return hints


def _as_output(value: Any) -> Any:
    if isinstance(value, BaseModel) and not _is_passthrough(value):
        return value.model_dump()
    return value


def _is_passthrough(value: BaseModel) -> bool:
    from pyadk import types
    from pyadk.events.event import Event
    from pyadk.workflow._request_input import RequestInput

    return isinstance(value, (Event, types.Content, RequestInput))
