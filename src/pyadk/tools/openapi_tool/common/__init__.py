"""Shared pieces of the OpenAPI tools."""

from pyadk.tools.openapi_tool.common.common import (
    ApiParameter,
    rename_python_keywords,
    to_snake_case,
)

__all__ = ["ApiParameter", "rename_python_keywords", "to_snake_case"]
