"""Models for sandboxed test runs, loaded by reference (``<this file>:name``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pyadk.models import LlmRequest
from pyadk.testing import FunctionModel, function_call

HERE = Path(__file__).resolve()


def _tool_caller(request: LlmRequest) -> Any:
    last = request.contents[-1]
    if any(p.function_response for p in last.parts or []):
        return "All done."
    names = request.declared_function_names()
    return function_call(names[0], {"a": 2, "b": 3}) if names else "No tools."


def tool_caller() -> FunctionModel:
    """Calls the first declared tool with a=2, b=3, then answers 'All done.'."""
    return FunctionModel(_tool_caller, model="tool-caller")


def _fail(request: LlmRequest) -> Any:
    raise RuntimeError("model exploded")


def failing() -> FunctionModel:
    """Raises on every call."""
    return FunctionModel(_fail, model="failing")


def ref(name: str) -> str:
    """The reference of a model factory of this file."""
    return f"{HERE}:{name}"
