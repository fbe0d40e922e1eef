"""Plugins: Runner-wide hooks."""

from pyadk.plugins.base_plugin import BasePlugin
from pyadk.plugins.plugin_manager import PluginManager

__all__ = ["BasePlugin", "PluginManager"]
