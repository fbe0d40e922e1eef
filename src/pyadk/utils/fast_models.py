"""Fast paths for the framework's own pydantic objects: construction, update, deep copy.

Events, requests and contexts are built many times per turn from values the framework
has already validated. ``Model(...)`` validates them again and pydantic's
``model_construct`` inspects every default factory's signature on each call;
:func:`construct` runs a construction function generated once per class instead, and
:func:`updated` builds a new object from a template's values in one dict copy.
``model_copy(deep=True)`` goes through ``copy.deepcopy`` (a memo dict, the reduce
protocol); :func:`copy_model` walks the object once, copying containers and models and
sharing immutable leaves. :func:`set_field` assigns a field without pydantic's
``__setattr__`` dispatch. None of them validates: use them only on values of the right
types.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable
from typing import Any, TypeVar

from pydantic import BaseModel

_M = TypeVar("_M", bound=BaseModel)

_LEAVES = frozenset({str, int, float, bool, bytes, type(None), frozenset})

_new = object.__new__
# BaseModel's slots, set through their descriptors: a C call each, without
# ``object.__setattr__``'s lookup of the name.
_set_dict = BaseModel.__dict__["__dict__"].__set__
_set_fields_set = BaseModel.__dict__["__pydantic_fields_set__"].__set__
_set_extra = BaseModel.__dict__["__pydantic_extra__"].__set__
_set_private = BaseModel.__dict__["__pydantic_private__"].__set__


_Builder = Callable[[dict[str, Any]], Any]
_builders: dict[type[BaseModel], _Builder] = {}
_MUTABLE_DEFAULTS = (list, dict, set)
_EMPTY_LITERALS = {dict: "{}", list: "[]"}


def _builder(cls: type[BaseModel]) -> _Builder:
    """``cls``'s construction function: straight-line code generated from its fields,
    static defaults copied from one dict, ``{}`` / ``[]`` factories inlined."""
    static: dict[str, Any] = {}
    namespace: dict[str, Any] = {
        "cls": cls,
        "new": _new,
        "set_dict": _set_dict,
        "set_fields_set": _set_fields_set,
        "set_extra": _set_extra,
        "set_private": _set_private,
        "private_defaults": _private_defaults,
        "static": static,
    }
    lines = ["def build(values):", "    data = static.copy()"]
    for name, info in cls.model_fields.items():
        factory = info.default_factory
        if factory is None and info.is_required():
            continue
        if factory is None and not isinstance(info.default, _MUTABLE_DEFAULTS):
            static[name] = info.default
            continue
        if factory in _EMPTY_LITERALS:
            make = _EMPTY_LITERALS[factory]
        else:
            if isinstance(factory, type) and issubclass(factory, BaseModel):
                maker: Callable[[], Any] = functools.partial(construct, factory)
            elif factory is not None:
                maker = factory  # type: ignore[assignment]
            else:
                maker = functools.partial(copy.deepcopy, info.default)
            maker_name = f"make_{name}"
            namespace[maker_name] = maker
            make = f"{maker_name}()"
        lines += [f"    if {name!r} not in values:", f"        data[{name!r}] = {make}"]
    private = "private_defaults(cls)" if cls.__private_attributes__ else "None"
    lines += [
        "    data.update(values)",
        "    model = new(cls)",
        "    set_dict(model, data)",
        "    set_fields_set(model, set(values))",
        "    set_extra(model, None)",
        f"    set_private(model, {private})",
        "    return model",
    ]
    exec("\n".join(lines), namespace)  # the code holds only field names, as literals
    build: _Builder = namespace["build"]
    _builders[cls] = build
    return build


def _private_defaults(cls: type[BaseModel]) -> dict[str, Any]:
    return {k: v.get_default() for k, v in cls.__private_attributes__.items()}


def construct(cls: type[_M], **values: Any) -> _M:
    """``cls(**values)`` without validation: defaults filled in, ``values`` marked set.

    ``values`` must be keyed by field name and already of the fields' types."""
    build = _builders.get(cls) or _builder(cls)
    model: _M = build(values)
    return model


def validated(cls: type[_M], value: Any) -> _M:
    """``cls.model_validate(value)``: ``value`` itself when it is a ``cls`` already (what
    pydantic returns for one, without the call into its validator)."""
    if isinstance(value, cls):
        return value
    return cls.model_validate(value)


def set_field(model: BaseModel, name: str, value: Any) -> None:
    """``model.name = value`` for a plain field (no validation on assignment, not frozen),
    without pydantic's ``__setattr__`` dispatch."""
    model.__dict__[name] = value
    model.__pydantic_fields_set__.add(name)


def updated(template: _M, source: BaseModel | None, values: dict[str, Any]) -> _M:
    """A new object of ``template``'s class: its field values (shared, not copied), then
    the set fields of ``source`` (a model whose fields are fields of ``template``'s
    class), then ``values``; all of these marked set. Like
    ``model_copy(update=...)``, without a copy of private attributes; ``template`` must
    be a plain model (no extra fields)."""
    data = template.__dict__.copy()
    fields_set = template.__pydantic_fields_set__ | values.keys()
    if source is not None:
        taken = source.__pydantic_fields_set__
        source_values = source.__dict__
        for name in taken:
            data[name] = source_values[name]
        fields_set |= taken
    data.update(values)
    return assembled(type(template), data, fields_set)


def assembled(cls: type[_M], data: dict[str, Any], fields_set: set[str]) -> _M:
    """A ``cls`` object whose ``__dict__`` is ``data`` (every field, nothing else) and
    whose set fields are ``fields_set``; a plain model class (no private attributes)."""
    new: _M = _new(cls)
    _set_dict(new, data)
    _set_fields_set(new, fields_set)
    _set_extra(new, None)
    _set_private(new, None)
    return new


def copy_model(model: _M) -> _M:
    """A deep copy of ``model``: same class, same set fields, nothing shared but
    immutable values."""
    new = _new(type(model))
    leaves = _LEAVES
    _set_dict(
        new, {k: v if type(v) in leaves else copy_value(v) for k, v in model.__dict__.items()}
    )
    _set_fields_set(new, set(model.__pydantic_fields_set__))
    extra = model.__pydantic_extra__
    _set_extra(new, None if extra is None else copy_value(extra))
    private = model.__pydantic_private__
    _set_private(new, None if private is None else copy.deepcopy(private))
    return new


def copy_value(value: Any) -> Any:
    """A deep copy of a value found in a model (models, lists, dicts, sets, leaves); a
    dict or list of leaves only (checked in C) is copied in one call."""
    kind = type(value)
    if kind in _LEAVES:
        return value
    if kind is dict:
        if _LEAVES.issuperset(map(type, value.values())):
            return value.copy()
        return {k: copy_value(v) for k, v in value.items()}
    if kind is list:
        if _LEAVES.issuperset(map(type, value)):
            return value.copy()
        return [copy_value(v) for v in value]
    if isinstance(value, BaseModel):
        return copy_model(value)
    if kind is set:
        return {copy_value(v) for v in value}
    if kind is tuple:
        return tuple(copy_value(v) for v in value)
    if isinstance(value, (str, int, float, bytes)):  # subclasses, e.g. str enums
        return value
    return copy.deepcopy(value)
