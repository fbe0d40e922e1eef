"""Calling user callbacks: single or list, sync or async, always by keyword."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pyadk.plugins.plugin_manager import PluginManager

Callbacks = Callable[..., Any] | Sequence[Callable[..., Any]] | None


def as_callback_list(callbacks: Callbacks) -> list[Callable[..., Any]]:
    """A callback field's value as a list."""
    if callbacks is None:
        return []
    if callable(callbacks):
        return [callbacks]
    return list(callbacks)


async def call_maybe_async(callback: Callable[..., Any], **kwargs: Any) -> Any:
    """Calls ``callback`` by keyword and awaits its result when it is awaitable."""
    result = callback(**kwargs)
    if result is not None and inspect.isawaitable(result):  # most callbacks return None
        result = await result
    return result


async def first_result(callbacks: Callbacks, **kwargs: Any) -> Any:
    """Runs callbacks in order; returns the first non-None result (None if none)."""
    for callback in as_callback_list(callbacks):
        result = await call_maybe_async(callback, **kwargs)
        if result is not None:
            return result
    return None


def has_listener(plugin_manager: PluginManager | None, hook: str, callbacks: Callbacks) -> bool:
    """True when one of the Runner's plugins or one of ``callbacks`` listens at ``hook``."""
    return bool(callbacks) or (plugin_manager is not None and plugin_manager.has(hook))


async def plugins_then_callbacks(
    plugin_manager: PluginManager | None,
    hook: str,
    plugin_kwargs: dict[str, Any],
    callbacks: Callbacks,
    callback_kwargs: dict[str, Any] | None = None,
) -> Any:
    """The single dispatch rule of every callback point: the Runner's plugins' ``hook``
    first, then the agent's ``callbacks``; the first non-None result wins.

    ``callback_kwargs`` defaults to ``plugin_kwargs`` (some hooks name arguments
    differently for plugins and for agent callbacks).
    """
    if plugin_manager is not None and plugin_manager.has(hook):
        result = await plugin_manager.run(hook, **plugin_kwargs)
        if result is not None:
            return result
    if not callbacks:
        return None
    return await first_result(
        callbacks, **(plugin_kwargs if callback_kwargs is None else callback_kwargs)
    )
