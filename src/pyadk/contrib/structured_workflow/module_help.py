"""Docstrings and signatures of a module, compact enough for a model's prompt."""

from __future__ import annotations

import ast
import functools
import importlib
import inspect
import itertools
import re
import textwrap
from typing import Any

from pydantic import BaseModel
from pydantic_core import PydanticUndefined

_QUALIFIED = re.compile(r"\b(?:[A-Za-z_][\w]*\.)+([A-Za-z_]\w*)")
_ANGLED = re.compile(r"<[^<>]*>")
_BASEMODEL_NAMES = frozenset(dir(BaseModel))
_INTERNAL_METHODS = frozenset(
    {"run_async", "run_live", "skip_event", "process_llm_request", "get_tools_checked"}
)
_INTERNAL_PREFIXES = ("canonical_",)
_SHORTER = (("typing.", ""), ("collections.abc.", ""), ("NoneType", "None"))


def _shorten(text: str) -> str:
    for old, new in _SHORTER:
        text = text.replace(old, new)
    text = _QUALIFIED.sub(r"\1", text)
    text = _ANGLED.sub("...", text)  # <factory>, <Enum.X: 1>: not Python
    return text.replace("Callable[..., Any]", "Callable")


def summary(doc: str | None, max_chars: int = 300) -> str:
    """The first paragraph of a docstring, on one line."""
    if not doc:
        return ""
    paragraph = inspect.cleandoc(doc).split("\n\n", 1)[0]
    text = " ".join(paragraph.split())
    return text if len(text) <= max_chars else text[: max_chars - 3] + "..."


def type_name(annotation: Any) -> str:
    """A short readable name for a type annotation (``str | None``, ``list[BaseTool]``)."""
    if isinstance(annotation, type) and not getattr(annotation, "__args__", None):
        return annotation.__name__
    return _shorten(str(annotation))


def _annotation_text(annotation: Any) -> str:
    return _shorten(annotation) if isinstance(annotation, str) else type_name(annotation)


def signature(obj: Any) -> str:
    """``(a: int, b: int) -> int``, shortened; ``(...)`` when it cannot be read."""
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return "(...)"
    params: list[str] = []
    star_done = False
    for param in sig.parameters.values():
        if param.kind is param.KEYWORD_ONLY and not star_done:
            params.append("*")
        star_done = star_done or param.kind in (param.KEYWORD_ONLY, param.VAR_POSITIONAL)
        prefix = "*" if param.kind is param.VAR_POSITIONAL else ""
        prefix = "**" if param.kind is param.VAR_KEYWORD else prefix
        text = prefix + param.name
        if param.annotation is not param.empty:
            text += f": {_annotation_text(param.annotation)}"
        if param.default is not param.empty:
            text += f" = {_default_text(param.default)}"
        params.append(text)
    result = f"({', '.join(params)})"
    if sig.return_annotation is not sig.empty:
        result += f" -> {_annotation_text(sig.return_annotation)}"
    return result


@functools.lru_cache(maxsize=256)
def attribute_docs(cls: type) -> dict[str, str]:
    """Docstrings written under class attributes (``x: int = 0`` then ``\"\"\"doc\"\"\"``)."""
    docs: dict[str, str] = {}
    for klass in reversed(cls.__mro__):
        if klass in (object, BaseModel):
            continue
        try:
            tree = ast.parse(textwrap.dedent(inspect.getsource(klass)))
        except (OSError, TypeError, SyntaxError):
            continue
        body = tree.body[0].body if tree.body and isinstance(tree.body[0], ast.ClassDef) else []
        for node, following in itertools.pairwise(body):
            if (
                isinstance(node, ast.AnnAssign)
                and isinstance(node.target, ast.Name)
                and isinstance(following, ast.Expr)
                and isinstance(following.value, ast.Constant)
                and isinstance(following.value.value, str)
            ):
                docs[node.target.id] = summary(following.value.value, 120)
    return docs


def _comment(doc: str) -> str:
    return f"  # {doc}" if doc else ""


def _docstring(doc: str, indent: str) -> str:
    return f'{indent}"""{doc.replace(chr(34) * 3, chr(39) * 3)}"""'


def _default_text(value: Any) -> str:
    text = repr(value)
    try:
        ast.parse(text, mode="eval")
    except SyntaxError:
        return "..."
    return text if len(text) <= 40 else "..."


def _field_line(name: str, field: Any, doc: str = "") -> str:
    line = f"    {name}: {type_name(field.annotation)}"
    if field.default is not PydanticUndefined:
        line += f" = {_default_text(field.default)}"
    elif field.default_factory is not None:
        factory = getattr(field.default_factory, "__name__", "")
        line += f" = {factory}()" if factory.isidentifier() else " = ..."
    return line + _comment(doc)


def class_help(name: str, cls: type) -> list[str]:
    """Stub lines (valid Python) for a class: docstring, fields or constructor, methods."""
    bases = ", ".join(b.__name__ for b in cls.__bases__ if b is not object)
    lines = [f"class {name}({bases}):" if bases else f"class {name}:"]
    doc = summary(cls.__doc__, 400)
    if doc:
        lines.append(_docstring(doc, "    "))
    if isinstance(cls, type) and issubclass(cls, BaseModel):
        fields = {k: v for k, v in cls.model_fields.items() if not v.exclude}
        docs = attribute_docs(cls)
        parent = next((b for b in cls.__mro__[1:] if issubclass(b, BaseModel)), BaseModel)
        inherited = [k for k in fields if parent is not BaseModel and k in parent.model_fields]
        if inherited:
            lines.append(f"    # fields from {parent.__name__}: {', '.join(inherited)}")
        lines += [
            _field_line(k, v, docs.get(k, "")) for k, v in fields.items() if k not in inherited
        ]
    elif "__init__" in vars(cls):
        lines.append(f"    def __init__{signature(cls.__init__)}: ...")
    for attr, value in vars(cls).items():
        if attr.startswith(("_", *_INTERNAL_PREFIXES)) or attr in _BASEMODEL_NAMES:
            continue
        if attr in _INTERNAL_METHODS:
            continue
        function = value.__func__ if isinstance(value, classmethod | staticmethod) else value
        if inspect.isfunction(function):
            method_doc = summary(function.__doc__, 160)
            lines.append(f"    def {attr}{signature(function)}: ...{_comment(method_doc)}")
        elif isinstance(value, property):
            prop_doc = summary(value.__doc__, 160)
            lines.append(f"    {attr}: property{_comment(prop_doc)}")
    if len(lines) == 1:
        lines.append("    ...")
    return lines


def public_names(module: Any) -> list[str]:
    """``__all__``, else the classes and functions the module itself defines."""
    names = getattr(module, "__all__", None)
    if names:
        return [str(n) for n in names]
    return [
        name
        for name, value in vars(module).items()
        if not name.startswith("_")
        and (inspect.isclass(value) or inspect.isfunction(value))
        and getattr(value, "__module__", None) == module.__name__
    ]


def module_help(module_name: str, max_chars: int = 6000) -> str:
    """Docstrings and signatures of the public names of ``module_name``, as a stub.

    The text reads as Python (``def f(a: int) -> int: ...  # summary``), so a model
    that copies from it still writes valid code.

    Raises ImportError (ModuleNotFoundError) when the module cannot be imported.
    """
    module = importlib.import_module(module_name)
    lines = [f"# module {module_name}"]
    doc = summary(module.__doc__, 600)
    if doc:
        lines.append(_docstring(doc, ""))
    shown: dict[int, str] = {}
    for name in public_names(module):
        value = getattr(module, name, None)
        if value is None:
            continue
        lines.append("")
        if id(value) in shown:
            lines.append(f"{name} = {shown[id(value)]}")
            continue
        shown[id(value)] = name
        if inspect.isclass(value):
            lines += class_help(name, value)
        elif callable(value):
            value_doc = summary(getattr(value, "__doc__", None), 300)
            sig = signature(value)
            if sig == "(...)":  # a type alias or an unreadable callable
                lines.append(f"{name} = ...  # {type_name(value)}")
            else:
                lines.append(f"def {name}{sig}: ...{_comment(value_doc)}")
        elif inspect.ismodule(value):
            lines.append(f"# module {name}: {summary(value.__doc__, 200)}")
        else:
            lines.append(f"{name}: {type(value).__name__}")
    text = "\n".join(lines)
    if len(text) > max_chars:
        cut = text.rfind("\n", 0, max_chars - 20)
        text = text[: cut if cut > 0 else max_chars - 20].rstrip() + "\n# [... truncated]"
    return text
