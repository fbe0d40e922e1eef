"""google-adk's module path for ``url_context`` (see :mod:`.gemini_builtin_tools`)."""

from pyadk.tools.gemini_builtin_tools import UrlContextTool, url_context

__all__ = ["UrlContextTool", "url_context"]
