"""FunctionNode: a plain Python function as a workflow node."""

from __future__ import annotations

import inspect
import json
from collections.abc import AsyncGenerator, Callable
from typing import Any, Literal, get_type_hints

from pydantic import BaseModel, PrivateAttr

from pyadk import types
from pyadk.auth.auth_tool import AuthConfig
from pyadk.utils.tool_thread_pool import run_in_tool_pool
from pyadk.workflow._base_node import BaseNode
from pyadk.workflow._coercion import Coercer, content_text
from pyadk.workflow._context import Context
from pyadk.workflow._errors import WorkflowConfigurationError, WorkflowDataError
from pyadk.workflow._node_gates import checked_gates, confirmation_gate, credential_gate
from pyadk.workflow._node_run import NodeWaiting

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

    With ``parameter_binding="node_input"`` every parameter but the context is
    filled from the node input instead: a dict (or pydantic model; a message or
    text holding a JSON object is parsed) by key, ``**kwargs`` taking the other
    keys.

    The return value is the node's output; a pydantic model is stored as its
    dict; None means no output. A generator may yield events
    (:class:`pyadk.events.Event`) and at most one output.

    ``require_confirmation`` (a bool, or a predicate, sync or async, over the
    function's arguments) asks the client to approve the call first, and
    ``auth_config`` for the end user's credential unless state holds it; both need
    ``rerun_on_resume=True`` (``node(..., require_confirmation=...)`` sets it). See
    :mod:`pyadk.workflow._node_gates`.
    """

    func: Callable[..., Any]
    auth_config: AuthConfig | None = None
    """Ask the client for this credential before the function runs (unless state
    holds it); the function reads it with ``AuthHandler(auth_config).get_auth_response(
    ctx.state)``."""
    require_confirmation: bool | Callable[..., Any] = False
    """Ask the client to approve the call first: a bool, or a predicate (sync or
    async) given the function's arguments (and ``ctx`` / ``node_input`` / state values
    it names). Approved, the function runs (``ctx.tool_confirmation`` holds the
    answer); rejected, the node outputs ``{"error": "This tool call is rejected."}``."""
    parameter_binding: Literal["state", "node_input"] = "state"
    """Where parameters other than ``ctx`` come from: session state (``node_input``
    the predecessor's output), or the keys of a dict node input."""
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
        data["auth_config"] = checked_gates(
            str(data["name"]),
            auth_config=data.get("auth_config"),
            require_confirmation=data.get("require_confirmation", False),
            parameter_binding=data.get("parameter_binding", "state"),
            rerun_on_resume=bool(data.get("rerun_on_resume", False)),
        )
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
        by_input = self.parameter_binding == "node_input"
        source: Any = _input_fields(node_input) if by_input else ctx.state
        for name, param in self._signature.parameters.items():
            if param.kind == param.VAR_POSITIONAL:
                continue
            if param.kind == param.VAR_KEYWORD:
                if by_input:  # the input's other keys
                    kwargs.update(
                        (k, v)
                        for k, v in source.items()
                        if k not in self._signature.parameters and k != self._context_param
                    )
                continue
            if name == self._context_param:
                kwargs[name] = ctx
            elif name == _INPUT_NAME and not by_input:
                kwargs[name] = self._coerce(name, node_input)
            elif name in source:
                kwargs[name] = self._coerce(name, source[name])
            elif param.default is not param.empty:
                kwargs[name] = param.default
            elif by_input:
                raise WorkflowDataError(
                    f"Missing value for parameter {name!r} of node {self.name!r}: the node "
                    f"input ({_described(node_input)}) lacks it and it has no default "
                    "(parameter_binding='node_input')."
                )
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
        if self.require_confirmation is not False:
            arguments = {k: v for k, v in kwargs.items() if k != self._context_param}
            held = await confirmation_gate(
                ctx,
                node_name=self.name,
                require_confirmation=self.require_confirmation,
                arguments=arguments,
                node_input=node_input,
            )
            if held is not None:  # the request for approval, or the rejected call's output
                yield held
                return
        if self.auth_config is not None:
            request = credential_gate(ctx, self.auth_config)
            if request is not None:  # the node waits on it
                yield request
                yield NodeWaiting()
                return
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


def _input_fields(node_input: Any) -> dict[str, Any]:
    """The named values a node input holds: a dict's items, a model's fields, a JSON
    object in a message or text; nothing for any other value."""
    value = node_input
    if isinstance(value, types.Content):
        value = content_text(value)
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            return {}
    if isinstance(value, BaseModel):
        return {name: getattr(value, name) for name in type(value).model_fields}
    return dict(value) if isinstance(value, dict) else {}


def _described(node_input: Any) -> str:
    fields = _input_fields(node_input)
    if fields:
        return f"keys {sorted(fields)}"
    if isinstance(node_input, types.Content | str):
        return "a message or text that is not a JSON object"
    if isinstance(node_input, dict | BaseModel):
        return "no keys"
    return f"a {type(node_input).__name__}, not a dict"


def _as_output(value: Any) -> Any:
    if isinstance(value, BaseModel) and not _is_passthrough(value):
        return value.model_dump()
    return value


def _is_passthrough(value: BaseModel) -> bool:
    from pyadk import types
    from pyadk.events.event import Event
    from pyadk.workflow._request_input import RequestInput

    return isinstance(value, (Event, types.Content, RequestInput))
