"""Inlines the local ``$ref``s of an OpenAPI document, stopping recursive ones.

A reference to a schema that is already being expanded higher up (``Node.children:
[Node]``) is not expanded again: it becomes a stub with the target's type and a
description saying what it stands for, so a recursive spec gives a finite schema.
"""

from __future__ import annotations

import copy
from typing import Any
from urllib.parse import unquote


class _Resolver:
    def __init__(self, root: dict[str, Any]) -> None:
        self._root = root
        self._cache: dict[str, Any] = {}
        self._cut: set[str] = set()  # refs stubbed out during the current expansion

    def resolve(self, node: Any, stack: tuple[str, ...], where: str) -> Any:
        if isinstance(node, list):
            return [self.resolve(item, stack, f"{where}/{i}") for i, item in enumerate(node)]
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        if not isinstance(ref, str):
            return {
                key: self.resolve(value, stack, f"{where}/{_escape(key)}")
                for key, value in node.items()
            }
        siblings = {
            k: self.resolve(v, stack, f"{where}/{_escape(k)}")
            for k, v in node.items()
            if k != "$ref"
        }
        return {**self._expand(ref, stack, where), **siblings}

    def _expand(self, ref: str, stack: tuple[str, ...], where: str) -> Any:
        if ref in stack:
            self._cut.add(ref)
            return _recursion_stub(ref, self._lookup(ref, where))
        if ref in self._cache:
            return copy.deepcopy(self._cache[ref])
        outer_cut, self._cut = self._cut, set()
        resolved = self.resolve(self._lookup(ref, where), (*stack, ref), ref)
        if self._cut <= {ref}:  # the same wherever it is used: safe to reuse
            self._cache[ref] = resolved
            resolved = copy.deepcopy(resolved)
        self._cut = outer_cut | (self._cut - {ref})
        return resolved

    def _lookup(self, ref: str, where: str) -> Any:
        if not ref.startswith("#"):
            raise ValueError(
                f"Invalid OpenAPI spec: $ref {ref!r} at {where or '/'} points outside the "
                "document; only local references ('#/components/...') are supported."
            )
        current: Any = self._root
        for raw in ref[1:].split("/")[1:]:
            part = unquote(raw).replace("~1", "/").replace("~0", "~")
            if isinstance(current, dict) and part in current:
                current = current[part]
            elif isinstance(current, list) and part.isdigit() and int(part) < len(current):
                current = current[int(part)]
            else:
                raise ValueError(
                    f"Invalid OpenAPI spec: $ref {ref!r} at {where or '/'} points to nothing."
                )
        return current


def _escape(key: Any) -> str:
    """A key as a JSON pointer segment (``/pets`` -> ``~1pets``)."""
    return str(key).replace("~", "~0").replace("/", "~1")


def _recursion_stub(ref: str, target: Any) -> dict[str, Any]:
    name = ref.rsplit("/", 1)[-1]
    stub: dict[str, Any] = {"description": f"A {name} (recursive: same shape as above)."}
    if isinstance(target, dict) and isinstance(target.get("type"), str):
        stub["type"] = target["type"]
    else:
        stub["type"] = "object"
    return stub


def resolve_references(spec: dict[str, Any]) -> dict[str, Any]:
    """A copy of ``spec`` with every local ``$ref`` inlined (recursive ones stubbed).

    Raises ``ValueError`` naming the reference for one that points outside the document
    or to nothing.
    """
    resolved: dict[str, Any] = _Resolver(spec).resolve(spec, (), "")
    return resolved


__all__ = ["resolve_references"]
