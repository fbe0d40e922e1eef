"""PluginManager: dispatches hooks to a Runner's plugins in order."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from typing import Any

from pyadk.plugins.base_plugin import BasePlugin

logger = logging.getLogger(__name__)


class PluginManager:
    """Runs a hook on each plugin in order; the first non-None result wins."""

    def __init__(self, plugins: Sequence[BasePlugin] | None = None) -> None:
        self.plugins: list[BasePlugin] = []
        self._by_hook: dict[str, list[Any]] = {}
        for plugin in plugins or []:
            self.register_plugin(plugin)

    def register_plugin(self, plugin: BasePlugin) -> None:
        """Adds a plugin; names must be unique."""
        if any(p.name == plugin.name for p in self.plugins):
            raise ValueError(f"Plugin named {plugin.name!r} is already registered.")
        self.plugins.append(plugin)
        self._by_hook.clear()

    def get_plugin(self, name: str) -> BasePlugin | None:
        """The plugin called ``name``, if any."""
        return next((p for p in self.plugins if p.name == name), None)

    def _hooks(self, hook: str) -> list[Any]:
        """Bound hook methods of the plugins that override ``hook`` (cached)."""
        hooks = self._by_hook.get(hook)
        if hooks is None:
            base = getattr(BasePlugin, hook)
            hooks = [
                getattr(p, hook) for p in self.plugins if getattr(type(p), hook, base) is not base
            ]
            self._by_hook[hook] = hooks
        return hooks

    def has(self, hook: str) -> bool:
        """True when some plugin implements ``hook``."""
        return bool(self._hooks(hook))

    async def run(self, hook: str, **kwargs: Any) -> Any:
        """Runs ``hook`` on every plugin until one returns a non-None value."""
        for method in self._hooks(hook):
            try:
                result = await method(**kwargs)
            except Exception as exc:
                owner = getattr(method, "__self__", None)
                name = getattr(owner, "name", "?")
                raise RuntimeError(f"Plugin {name!r} failed in {hook}: {exc}") from exc
            if result is not None:
                return result
        return None

    async def notify(self, hook: str, **kwargs: Any) -> None:
        """Runs a notification-only ``hook`` on every plugin that implements it; an
        exception of a plugin is logged, and the others are still told."""
        for method in self._hooks(hook):
            try:
                await method(**kwargs)
            except Exception:
                owner = getattr(method, "__self__", None)
                logger.exception("Plugin %r failed in %s", getattr(owner, "name", "?"), hook)

    async def close(self, timeout: float = 5.0) -> None:
        """Closes every plugin, each within ``timeout`` seconds."""
        for plugin in self.plugins:
            try:
                await asyncio.wait_for(plugin.close(), timeout)
            except Exception:
                logger.exception("Plugin %r failed to close", plugin.name)
