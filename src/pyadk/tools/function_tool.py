"""FunctionTool: a Python function (sync or async) exposed to the model."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import AsyncGenerator, Callable
from typing import TYPE_CHECKING, Any

from pyadk import types
from pyadk.tools.base_tool import BaseTool, RequireConfirmation
from pyadk.tools.function_declarations import build_function_declaration, validate_arguments
from pyadk.tools.stop_streaming_tool import STOP_STREAMING
from pyadk.utils.tool_thread_pool import run_in_tool_pool

if TYPE_CHECKING:
    from pyadk.agents.run_config import ToolThreadPoolConfig
    from pyadk.tools.tool_context import ToolContext

_IGNORED = ("tool_context", "input_stream")


class FunctionTool(BaseTool):
    """Wraps a function: its signature and docstring become the declaration.

    Arguments from the model are validated and coerced against the type hints
    (pydantic models included); invalid or missing ones come back to the model as an
    ``{"error": ...}`` result instead of raising. A parameter named ``tool_context``
    receives the :class:`ToolContext`. When several calls run at once, sync functions
    run in worker threads so they do not block each other; with
    ``RunConfig.tool_thread_pool_config`` every sync call runs on that pool.
    ``require_confirmation`` (True, or a predicate over the arguments) makes calls wait
    for a person's approval.
    ``idempotent=True`` lets a call cut off by a crash run again on resume.
    In a live run, an async-generator function is a streaming tool (see
    :mod:`pyadk.flows.live_streaming_tools`); elsewhere it runs to its end and its last
    value is the result (each value before it is a progress report when
    ``streams_progress=True``).
    ``streams_progress=True`` lets the function report progress while it runs
    (``tool_context.report_progress``); a sync one then runs in a worker thread, so
    that its reports reach the client while it works.
    """

    def __init__(
        self,
        func: Callable[..., Any],
        *,
        name: str | None = None,
        require_confirmation: RequireConfirmation = False,
        idempotent: bool = False,
        streams_progress: bool = False,
    ) -> None:
        tool_name = name or getattr(func, "__name__", None) or type(func).__name__
        self.func = func
        self._ignore_params: list[str] = list(_IGNORED)
        """Parameters the model never sees nor fills (the framework passes them)."""
        self._declaration: types.FunctionDeclaration | None = None
        self._description: str | None = None
        super().__init__(
            name=tool_name,
            require_confirmation=require_confirmation,
            idempotent=idempotent,
            streams_progress=streams_progress,
        )
        target = func if inspect.isroutine(func) else getattr(func, "__call__", func)  # noqa: B004
        self._signature_parameters = inspect.signature(target).parameters
        """The function's parameters (the hidden ones the framework fills included)."""
        self._takes_tool_context = "tool_context" in self._signature_parameters
        self._is_async = inspect.iscoroutinefunction(target)
        self._is_async_gen = inspect.isasyncgenfunction(target)

    @property
    def description(self) -> str:
        """The docstring's summary: what the model sees as the tool's description."""
        if self._description is None:
            declaration = self._get_declaration()
            self._description = (declaration.description if declaration else None) or ""
        return self._description

    @description.setter
    def description(self, value: str) -> None:
        self._description = value or None

    def _get_declaration(self) -> types.FunctionDeclaration | None:
        if self._declaration is None:
            self._declaration = build_function_declaration(
                self.func, ignore_params=self._ignore_params, name=self.name
            )
        return self._declaration

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        if (self._is_async_gen or self.name == STOP_STREAMING) and _in_live_run(tool_context):
            from pyadk.flows.live_streaming_tools import run_live_call  # streaming tools

            return await run_live_call(self, args, tool_context)
        return await self._call_function(args, tool_context)

    async def _call_function(
        self,
        args: dict[str, Any],
        tool_context: ToolContext,
        *,
        as_generator: bool = False,
        **hidden: Any,
    ) -> Any:
        """Calls the function with the model's validated ``args`` and the ``hidden``
        values the framework passes to ignored parameters. ``as_generator``: an
        async-generator function's generator, not started (a live run streams it)."""
        kwargs, errors = validate_arguments(
            self.func, args or {}, ignore_params=self._ignore_params
        )
        if errors:
            return {
                "error": f"Invoking `{self.name}()` failed: "
                + "; ".join(errors)
                + ". Fix the arguments and call the tool again."
            }
        if self._takes_tool_context:
            kwargs["tool_context"] = tool_context
        kwargs.update(hidden)
        if self._is_async:
            return await self.func(**kwargs)
        if self._is_async_gen:
            generator = self.func(**kwargs)
            return generator if as_generator else await _last_value(generator, tool_context)
        pool = _pool_config(tool_context)
        if pool is not None or getattr(tool_context, "concurrent", False) or self.streams_progress:
            result = await run_off_loop(pool, self.func, **kwargs)
        else:
            result = self.func(**kwargs)
        if inspect.isawaitable(result):
            result = await result
        return result


async def _last_value(generator: AsyncGenerator[Any, None], tool_context: ToolContext) -> Any:
    """Runs an async-generator tool outside a live run: its last value (None if it
    yields nothing); the values before it are reported as progress (dropped unless the
    tool streams progress)."""
    last: Any = None
    started = False
    try:
        async for value in generator:
            if started and isinstance(last, str | dict):
                tool_context.report_progress(last)
            last, started = value, True
    finally:
        await generator.aclose()
    return last


async def run_off_loop(
    pool: ToolThreadPoolConfig | None, func: Callable[..., Any], **kwargs: Any
) -> Any:
    """``func(**kwargs)`` off the event loop: on the run's tool thread ``pool`` when it
    has one (see :func:`_pool_config`), else in a worker thread."""
    if pool is not None:
        return await run_in_tool_pool(pool, func, **kwargs)
    return await asyncio.to_thread(func, **kwargs)


def _in_live_run(tool_context: ToolContext | None) -> bool:
    ctx = getattr(tool_context, "_invocation_context", None)
    return ctx is not None and ctx.live_request_queue is not None


def _pool_config(tool_context: ToolContext | None) -> ToolThreadPoolConfig | None:
    """The run's ``tool_thread_pool_config`` (None without a tool context)."""
    if tool_context is None:
        return None
    return tool_context._invocation_context.run_config.tool_thread_pool_config
