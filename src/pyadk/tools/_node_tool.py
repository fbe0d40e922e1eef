"""google-adk's module path of :class:`NodeTool` (``google.adk.tools._node_tool``), for
ported imports; the class lives in :mod:`pyadk.tools.node_tool`."""

from pyadk.tools.node_tool import NodeTool

__all__ = ["NodeTool"]
