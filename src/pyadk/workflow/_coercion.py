"""Fitting a value to a function parameter's annotation (pydantic's lax validation)."""

from __future__ import annotations

import json
from types import UnionType
from typing import Annotated, Any, Union, get_args, get_origin

from pydantic import TypeAdapter

from pyadk import types


def _strip(hint: Any) -> Any:
    return get_args(hint)[0] if get_origin(hint) is Annotated else hint


def _is_content(hint: Any) -> bool:
    return isinstance(hint, type) and issubclass(hint, types.Content)


def expects_str(hint: Any) -> bool:
    """True for ``str`` (or a union of ``str`` with None / Content)."""
    hint = _strip(hint)
    if hint is str:
        return True
    if get_origin(hint) in (Union, UnionType):
        args = [_strip(a) for a in get_args(hint)]
        return any(a is str for a in args) and all(
            a is str or a is type(None) or _is_content(a) for a in args
        )
    return False


def accepts_content(hint: Any) -> bool:
    """True when ``hint`` takes a Content as it is."""
    hint = _strip(hint)
    if hint in (Any, object) or _is_content(hint):
        return True
    if get_origin(hint) in (Union, UnionType):
        return any(accepts_content(a) for a in get_args(hint))
    return False


def content_text(content: types.Content) -> str:
    """The non-thought text of ``content``."""
    return "".join(p.text for p in content.parts or [] if p.text and not p.thought)


def unwrap_content(content: types.Content, hint: Any) -> Any:
    """A message given to a parameter: its text for ``str``, as is when the hint takes
    Content, else its text parsed as JSON (the text when it is not JSON)."""
    if expects_str(hint):
        return content_text(content)
    if accepts_content(hint):
        return content
    text = content_text(content)
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


class Coercer:
    """Validates values against annotations, one cached adapter per annotation."""

    def __init__(self) -> None:
        self._adapters: dict[int, TypeAdapter[Any]] = {}
        self._keep: list[Any] = []

    def __call__(self, value: Any, hint: Any) -> Any:
        if hint is None or _strip(hint) in (Any, object):
            return value
        if isinstance(value, types.Content):
            value = unwrap_content(value, hint)
        adapter = self._adapters.get(id(hint))
        if adapter is None:
            adapter = self._adapters[id(hint)] = TypeAdapter(hint)
            self._keep.append(hint)
        return adapter.validate_python(value)
