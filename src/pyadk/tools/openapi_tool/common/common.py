"""One parameter of an OpenAPI operation, and the naming rules for tool arguments."""

from __future__ import annotations

import keyword
import re
from typing import Any

from pydantic import BaseModel, Field

_LOCATION_DEFAULT_NAMES = {
    "body": "body",
    "query": "query_param",
    "path": "path_param",
    "header": "header_param",
    "cookie": "cookie_param",
}


def to_snake_case(text: str) -> str:
    """``"findPetsByStatus"`` -> ``"find_pets_by_status"``; non-alphanumerics become ``_``."""
    text = re.sub(r"[^a-zA-Z0-9]+", "_", text)
    text = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", text)
    text = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", text)
    return re.sub(r"_+", "_", text.lower()).strip("_")


def rename_python_keywords(name: str, prefix: str = "param_") -> str:
    """``"if"`` -> ``"param_if"``: a Python keyword cannot be an argument name."""
    return prefix + name if keyword.iskeyword(name) else name


class ApiParameter(BaseModel):
    """A parameter of an operation: where it goes (``path``, ``query``, ``header``,
    ``cookie``, ``body``), its name there, its JSON Schema and the tool argument name
    (``py_name``, snake_case unless the toolset preserves property names)."""

    original_name: str
    param_location: str
    param_schema: dict[str, Any] = Field(default_factory=dict)
    description: str = ""
    py_name: str = ""
    required: bool = False

    def model_post_init(self, _context: Any) -> None:
        if not self.py_name:
            name = rename_python_keywords(to_snake_case(self.original_name))
            self.py_name = name or _LOCATION_DEFAULT_NAMES.get(self.param_location, "value")
        if not self.description:
            self.description = str(self.param_schema.get("description") or "")


__all__ = ["ApiParameter", "rename_python_keywords", "to_snake_case"]
