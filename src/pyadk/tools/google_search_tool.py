"""google-adk's module path for ``google_search`` (see :mod:`.gemini_builtin_tools`)."""

from pyadk.tools.gemini_builtin_tools import GoogleSearchTool, google_search

__all__ = ["GoogleSearchTool", "google_search"]
