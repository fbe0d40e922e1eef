"""Plugins: Runner-wide hooks.

The built-in plugins are imported on first use: ``import pyadk.plugins`` stays cheap.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from pyadk.plugins.base_plugin import BasePlugin
from pyadk.plugins.plugin_manager import PluginManager

if TYPE_CHECKING:
    from pyadk.plugins._callback_helpers import ToolResultClassification, ToolResultClassifier
    from pyadk.plugins._reflect_retry_model_plugin import ReflectAndRetryModelPlugin
    from pyadk.plugins._tool_call_integrity_plugin import (
        ToolCallIntegrityError,
        ToolCallIntegrityPlugin,
    )
    from pyadk.plugins.debug_logging_plugin import DebugLoggingPlugin
    from pyadk.plugins.logging_plugin import LoggingPlugin
    from pyadk.plugins.reflect_retry_tool_plugin import ReflectAndRetryToolPlugin

__all__ = [
    "BasePlugin",
    "DebugLoggingPlugin",
    "LoggingPlugin",
    "PluginManager",
    "ReflectAndRetryModelPlugin",
    "ReflectAndRetryToolPlugin",
    "ToolCallIntegrityError",
    "ToolCallIntegrityPlugin",
    "ToolResultClassification",
    "ToolResultClassifier",
]

_LAZY_MEMBERS: dict[str, str] = {
    "DebugLoggingPlugin": "debug_logging_plugin",
    "LoggingPlugin": "logging_plugin",
    "ReflectAndRetryModelPlugin": "_reflect_retry_model_plugin",
    "ReflectAndRetryToolPlugin": "reflect_retry_tool_plugin",
    "ToolCallIntegrityError": "_tool_call_integrity_plugin",
    "ToolCallIntegrityPlugin": "_tool_call_integrity_plugin",
    "ToolResultClassification": "_callback_helpers",
    "ToolResultClassifier": "_callback_helpers",
}


def __getattr__(name: str) -> Any:
    module = _LAZY_MEMBERS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
