"""A compact, exact encoding of events for sessions kept in process memory.

A decoded :class:`~pyadk.events.event.Event` is a tree of pydantic objects (the event,
its actions, content, parts, ...), each with a ``__dict__`` of every field and a
``model_fields_set``: 3-4 KiB for a one-line message. :func:`encode` turns it into a
``bytes`` string of ``marshal`` data (200-300 bytes for such a message), and
:func:`decode` builds an equal tree again:

- a model becomes ``(header, value of each field, in order)``; the header holds the
  class id and which fields are set, so the decoded model has the same class
  (``UserContent`` stays ``UserContent``), the same values and the same
  ``model_fields_set``. A field whose annotation admits only plain values (``str | None``,
  ``set[str]``, ...) is handed to ``marshal`` as it is; if one holds something else,
  ``marshal`` refuses it and the event is encoded again looking at every value;
- ``str``, ``int``, ``float`` (bit for bit), ``bool``, ``None``, ``bytes``, lists, dicts
  with such keys, and sets and frozensets of such values are kept as they are; tuples
  and enum members are tagged with a class id;
- anything else (a ``datetime`` in a state delta, a user object, a model with private
  attributes...) is kept aside as a deep copy, and deep-copied again on each decode,
  which is what a deep copy of the event would do.

Class ids index a table of this process: the encoding is for memory, not for disk.
Neither function validates: the values are the framework's own, already validated.
Each model class gets its own encoding and decoding functions, generated on first use,
that read the fields by name in straight-line code (this runs for every event a turn
stores).
"""

from __future__ import annotations

import enum
import marshal
import threading
from collections.abc import Callable, Iterable
from types import UnionType
from typing import Annotated, Any, Literal, TypeVar, Union, get_args, get_origin

from pydantic import BaseModel

from pyadk.utils.fast_models import copy_model, copy_value

_M = TypeVar("_M", bound=BaseModel)

_LEAVES = frozenset({str, int, float, bool, bytes, type(None)})
_SETS = (set, frozenset)
_EMPTY_AS_IS = frozenset({dict, list})
"""Containers that, when empty, are encoded as they are (marshal only reads them)."""

_CLASS_BITS = 10
"""A header is ``class id | fields-set bits << _CLASS_BITS``: one int, 5 bytes."""
_MAX_CLASSES = 1 << _CLASS_BITS
_CLASS_MASK = _MAX_CLASSES - 1

_TUPLE = 0
"""Class id of a plain tuple: ``(0, *items)``."""
_ASIDE = 1
"""Class id of a value kept aside: ``(1, index)``."""

_new = object.__new__
_set = object.__setattr__


class _Layout:
    """How one model class is encoded: its fields in order, which of them are taken as
    they are (``raw``), and the generated functions that encode and decode it."""

    __slots__ = ("bits", "cls", "decode", "encode", "names", "plain", "raw", "sets", "strict")

    def __init__(self, cls: type[BaseModel], cid: int, kinds: tuple[str, ...]) -> None:
        self.cls = cls
        self.names = tuple(cls.model_fields)
        self.raw = raw = tuple(kind == _RAW for kind in kinds)
        self.bits = {name: 1 << (i + _CLASS_BITS) for i, name in enumerate(self.names)}
        self.plain = not cls.__private_attributes__ and cls.model_config.get("extra") != "allow"
        """Nothing but fields: no private attributes, no extra fields."""
        self.sets: dict[int, frozenset[str]] = {}
        self.strict = cid
        """The class id of the layout that takes no field as it is (this one, or the next)."""
        self.encode = _model_encoder(cid, self.names, self.bits, kinds)
        self.decode = _model_decoder(self.names, raw)

    def fields_set(self, header: int) -> set[str]:
        """The names of the fields whose bits ``header`` has."""
        names = self.sets.get(header)
        if names is None:
            mask = header >> _CLASS_BITS
            names = frozenset(n for i, n in enumerate(self.names) if mask >> i & 1)
            if len(self.sets) < 1024:
                self.sets[header] = names
        return set(names)


_RAW, _MODEL, _MODELS, _ANY = "raw", "model", "models", "any"
"""Field kinds: plain values only (taken as they are), a model or None, a list of models
or None, anything else."""


def _field_kind(annotation: Any) -> str:
    """What a field so annotated holds, as far as the encoder cares."""
    if _holds_leaves(annotation):
        return _RAW
    if get_origin(annotation) in (Union, UnionType):
        others = [arg for arg in get_args(annotation) if arg is not type(None)]
        if len(others) == 1:
            annotation = others[0]
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return _MODEL
    if get_origin(annotation) is list:
        (item,) = get_args(annotation) or (Any,)
        if isinstance(item, type) and issubclass(item, BaseModel):
            return _MODELS
    return _ANY


def _holds_leaves(annotation: Any) -> bool:
    """Whether every value of a field so annotated is one ``marshal`` copies exactly and
    the decoder keeps as it is: leaves, and lists, sets, tuples and dicts of leaves."""
    if annotation in _LEAVES:
        return True
    origin, args = get_origin(annotation), get_args(annotation)
    if origin is Literal:
        return all(type(arg) in _LEAVES for arg in args)
    if origin is Annotated:
        return _holds_leaves(args[0])
    if origin in (Union, UnionType, list, set, frozenset, tuple, dict) and args:
        return all(arg is Ellipsis or _holds_leaves(arg) for arg in args)
    return False


_ModelEncoder = Callable[
    [dict[str, Any], Iterable[str], Callable[[Any], Any], Callable[[Any], Any]], tuple[Any, ...]
]
"""``(model.__dict__, model fields set, encode a non-leaf value, encode a model) ->
encoded model``;
raises KeyError for a field missing from the dict or an unknown name in the set."""

_ModelDecoder = Callable[[tuple[Any, ...], Callable[[Any], Any]], dict[str, Any]]
"""``(encoded model, decode a non-leaf value) -> the new model's __dict__``."""


def _generated(source: list[str], name: str, **names: Any) -> Any:
    namespace: dict[str, Any] = {"leaves": _LEAVES, **names}
    exec("\n".join(source), namespace)  # the code holds only field names, as literals
    return namespace[name]


def _converted(get: str) -> str:
    """Code for the value ``get`` reads, passed to ``value()`` unless it is a leaf."""
    return f"(v if type(v := {get}) in leaves else value(v))"


def _converted_out(get: str) -> str:
    """:func:`_converted` when encoding: an empty dict or list is also taken as it is."""
    return f"(v if (t := type(v := {get})) in leaves or (t in empties and not v) else value(v))"


_FIELD_CODE = {
    _RAW: "{get}",
    _MODEL: "(v if (v := {get}) is None else model(v))",
    _MODELS: "(v if (v := {get}) is None else [*map(model, v)] if type(v) is list else value(v))",
}


def _model_encoder(
    cid: int, names: tuple[str, ...], bits: dict[str, int], kinds: tuple[str, ...]
) -> _ModelEncoder:
    """The encoding function of one layout: one tuple, a field per item, in order.

    A raw field's value goes in as it is (``marshal`` copies it, or refuses it with a
    ValueError); a model field's value goes to ``model()``; any other field's value is
    encoded unless it is a leaf."""
    items = [f"{cid} + sum(map(bit, fields_set))"]
    for name, kind in zip(names, kinds, strict=True):
        get = f"d[{name!r}]"
        code = _FIELD_CODE[kind].format(get=get) if kind in _FIELD_CODE else _converted_out(get)
        items.append(code)
    source = ["def encode(d, fields_set, value, model):", f"    return ({', '.join(items)},)"]
    encoder: _ModelEncoder = _generated(
        source, "encode", bit=bits.__getitem__, empties=_EMPTY_AS_IS
    )
    return encoder


def _model_decoder(names: tuple[str, ...], raw: tuple[bool, ...]) -> _ModelDecoder:
    """The decoding function of one layout: the model's ``__dict__`` in one dict display."""
    items = []
    for i, (name, as_is) in enumerate(zip(names, raw, strict=True), start=1):
        get = f"e[{i}]"
        items.append(f"{name!r}: {get if as_is else _converted(get)}")
    source = ["def decode(e, value):", f"    return {{{', '.join(items)}}}"]
    decoder: _ModelDecoder = _generated(source, "decode")
    return decoder


_classes: list[Any] = [tuple, None]
"""Class id -> a ``_Layout`` for a model class, the class itself for an enum."""
_ids: dict[type, int] = {}
_register_lock = threading.Lock()


def _class_id(cls: type) -> int | None:
    """The class's id (registered on first use); None once the table is full."""
    cid = _ids.get(cls)
    if cid is not None:
        return cid
    with _register_lock:
        cid = _ids.get(cls)
        if cid is None:
            if len(_classes) == _MAX_CLASSES:
                return None
            cid = len(_classes)
            if not issubclass(cls, BaseModel):
                _classes.append(cls)
            else:
                kinds = tuple(_field_kind(f.annotation) for f in cls.model_fields.values())
                layout = _Layout(cls, cid, kinds)
                _classes.append(layout)
                if _RAW in kinds:
                    if len(_classes) == _MAX_CLASSES:
                        del _classes[cid:]
                        return None
                    layout.strict = cid + 1
                    strict = tuple(_ANY if kind == _RAW else kind for kind in kinds)
                    _classes.append(_Layout(cls, cid + 1, strict))
            _ids[cls] = cid
    return cid


class Aside:
    """An encoded event with values that ``marshal`` cannot hold, kept aside."""

    __slots__ = ("data", "values")

    def __init__(self, data: bytes, values: tuple[Any, ...]) -> None:
        self.data = data
        self.values = values


Encoded = bytes | Aside
"""An event as :func:`encode` returns it."""


class _Encoder:
    """Turns a model into nested tuples, lists, dicts and leaves for ``marshal``.

    The result may share containers of leaves with the model: ``marshal`` only reads
    them, and the bytes it writes share nothing. A ``strict`` encoder takes no field as
    it is: for models whose fields hold values their annotations do not admit."""

    __slots__ = ("aside", "strict")

    def __init__(self, strict: bool = False) -> None:
        self.aside: list[Any] = []
        self.strict = strict

    def model(self, model: BaseModel) -> Any:
        """Encodes a model (anything else goes to :meth:`value`)."""
        cls = type(model)
        cid = _ids.get(cls)
        if cid is None:
            if not isinstance(model, BaseModel):
                return self.value(model)
            cid = _class_id(cls)
            if cid is None:
                return self.keep(copy_model(model))
        layout = _classes[cid]
        if type(layout) is not _Layout:  # an enum member
            return self.value(model)
        if self.strict:
            layout = _classes[layout.strict]
        values = model.__dict__
        if not layout.plain or len(values) != len(layout.names):
            return self.keep(copy_model(model))
        try:
            return layout.encode(values, model.__pydantic_fields_set__, self.value, self.model)
        except KeyError:  # a field missing from __dict__, or an unknown name in fields set
            return self.keep(copy_model(model))

    def value(self, value: Any) -> Any:
        kind = type(value)
        leaves = _LEAVES
        if kind in leaves:
            return value
        if kind is dict:
            if not value:
                return value  # marshal only reads it
            out = {}
            for k, v in value.items():
                if type(k) not in leaves:
                    return self.keep(copy_value(value))
                out[k] = v if type(v) in leaves else self.value(v)
            return out
        if kind is list:
            encode = self.value
            return [v if type(v) in leaves else encode(v) for v in value]
        cid = _ids.get(kind)  # a model or enum class seen before
        if cid is None:
            if isinstance(value, BaseModel):
                return self.model(value)
            if isinstance(value, enum.Enum):
                cid = _class_id(kind)
        if cid is not None:
            if type(_classes[cid]) is _Layout:
                return self.model(value)
            member = value._value_  # not .value: a descriptor call
            return (cid, member if type(member) in leaves else self.value(member))
        if kind is tuple:
            encode = self.value
            return (_TUPLE, *[encode(v) for v in value])
        if kind in _SETS and all(type(v) in leaves for v in value):
            return value
        return self.keep(copy_value(value))

    def keep(self, value: Any) -> tuple[int, int]:
        """Keeps ``value`` (a private deep copy) aside."""
        self.aside.append(value)
        return (_ASIDE, len(self.aside) - 1)


def encode(model: BaseModel) -> Encoded:
    """``model`` (an event) in compact form; shares nothing mutable with it."""
    encoder = _Encoder()
    try:
        data = marshal.dumps(encoder.model(model))
    except ValueError:  # a field typed for plain values holds something marshal refuses
        encoder = _Encoder(strict=True)
        data = marshal.dumps(encoder.model(model))
    return Aside(data, tuple(encoder.aside)) if encoder.aside else data


def decode(encoded: Encoded, cls: type[_M]) -> _M:
    """A new ``cls`` object (an event) equal to the one :func:`encode` was given."""
    if type(encoded) is Aside:
        decoded = _Decoder(encoded.values).value(marshal.loads(encoded.data))
    else:
        decoded = _Decoder(()).value(marshal.loads(encoded))  # type: ignore[arg-type]
    if not isinstance(decoded, cls):
        raise TypeError(f"Decoded a {type(decoded).__name__}, not a {cls.__name__}.")
    return decoded


def field_of(encoded: Encoded, cls: type[BaseModel], name: str) -> Any:
    """The value of ``cls`` field ``name`` in an encoded ``cls`` object, decoding
    nothing else."""
    aside: tuple[Any, ...] = ()
    if type(encoded) is Aside:
        aside, encoded = encoded.values, encoded.data
    root = marshal.loads(encoded)  # type: ignore[arg-type]
    cid = root[0] & _CLASS_MASK
    if cid == _ASIDE:
        return getattr(aside[root[1]], name)
    layout = _classes[cid]
    if type(layout) is not _Layout or not issubclass(layout.cls, cls):
        raise TypeError(f"Not an encoded {cls.__name__}.")
    index = layout.names.index(name)
    value = root[1 + index]
    return value if layout.raw[index] else _Decoder(aside).value(value)


class _Decoder:
    __slots__ = ("aside",)

    def __init__(self, aside: tuple[Any, ...]) -> None:
        self.aside = aside

    def value(self, value: Any) -> Any:
        kind = type(value)
        if kind is tuple:
            header = value[0]
            cid = header & _CLASS_MASK
            if cid == _TUPLE:
                return tuple([self.value(v) for v in value[1:]])
            if cid == _ASIDE:
                return copy_value(self.aside[value[1]])
            layout = _classes[cid]
            if type(layout) is not _Layout:
                return layout(self.value(value[1]))  # an enum member
            new = _new(layout.cls)
            _set(new, "__dict__", layout.decode(value, self.value))
            _set(new, "__pydantic_fields_set__", layout.fields_set(header))
            _set(new, "__pydantic_extra__", None)
            _set(new, "__pydantic_private__", None)
            return new
        if kind is list:
            decode = self.value
            return [decode(v) for v in value]
        if kind is dict:
            decode = self.value
            return {k: decode(v) for k, v in value.items()}
        return value  # a leaf, or a set of leaves: marshal made a new one
