"""A compact, exact encoding of events for sessions kept in process memory.

A decoded :class:`~pyadk.events.event.Event` is a tree of pydantic objects (the event,
its actions, content, parts, ...), each with a ``__dict__`` of every field and a
``model_fields_set``: 3-4 KiB for a one-line message. :func:`encode` turns it into a
``bytes`` string of ``marshal`` data (200-300 bytes for such a message), and
:func:`decode` builds an equal tree again:

- a model becomes ``(header, present, value of each field that is not None, in order)``;
  the header holds the class id and which fields are set, ``present`` which fields have
  a value, so the decoded model has the same class (``UserContent`` stays
  ``UserContent``), the same values and the same ``model_fields_set``;
- ``str``, ``int``, ``float`` (bit for bit), ``bool``, ``None``, ``bytes``, lists, dicts
  with such keys, and sets and frozensets of such values are kept as they are; tuples
  and enum members are tagged with a class id;
- anything else (a ``datetime`` in a state delta, a user object, a model with private
  attributes...) is kept aside as a deep copy, and deep-copied again on each decode,
  which is what a deep copy of the event would do.

Class ids index a table of this process: the encoding is for memory, not for disk.
Neither function validates: the values are the framework's own, already validated.
Each model class gets its own encoding function, generated on first use, that reads
the fields by name in straight-line code (this runs for every event a turn stores).
"""

from __future__ import annotations

import enum
import marshal
import threading
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

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


class _Model:
    """What the codec knows of a model class: its fields, in order, and its encoder."""

    __slots__ = ("bits", "cls", "encode", "names", "plain", "sets")

    def __init__(self, cls: type[BaseModel], cid: int) -> None:
        self.cls = cls
        self.names = tuple(cls.model_fields)
        self.bits = {name: 1 << (i + _CLASS_BITS) for i, name in enumerate(self.names)}
        self.plain = not cls.__private_attributes__ and cls.model_config.get("extra") != "allow"
        """Nothing but fields: no private attributes, no extra fields."""
        self.sets: dict[int, frozenset[str]] = {}
        self.encode = _model_encoder(cid, self.names, self.bits)

    def fields_set(self, header: int) -> set[str]:
        """The names of the fields whose bits ``header`` has."""
        names = self.sets.get(header)
        if names is None:
            mask = header >> _CLASS_BITS
            names = frozenset(n for i, n in enumerate(self.names) if mask >> i & 1)
            if len(self.sets) < 1024:
                self.sets[header] = names
        return set(names)


_ModelEncoder = Callable[[dict[str, Any], Iterable[str], Callable[[Any], Any]], tuple[Any, ...]]
"""``(model.__dict__, model fields set, encode a non-leaf value) -> encoded model``;
raises KeyError for a field missing from the dict or an unknown name in the set."""


def _model_encoder(cid: int, names: tuple[str, ...], bits: dict[str, int]) -> _ModelEncoder:
    """The encoding function of one model class: straight-line code over its fields."""
    lines = [
        "def encode(values, fields_set, value):",
        f"    out = [{cid} + sum(map(bit, fields_set)), 0]",
        "    present = 0",
    ]
    for i, name in enumerate(names):
        lines += [
            f"    v = values[{name!r}]",
            "    if v is not None:",
            f"        present |= {1 << i}",
            "        t = type(v)",
            "        out.append(v if t in leaves or (t in containers and not v) else value(v))",
        ]
    lines += ["    out[1] = present", "    return tuple(out)"]
    namespace: dict[str, Any] = {
        "bit": bits.__getitem__,
        "leaves": _LEAVES,
        "containers": _EMPTY_AS_IS,
    }
    exec("\n".join(lines), namespace)  # the code holds only field names, as literals
    encoder: _ModelEncoder = namespace["encode"]
    return encoder


_classes: list[Any] = [tuple, None]
"""Class id -> ``_Model`` for a model class, the class itself for an enum."""
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
            _classes.append(_Model(cls, cid) if issubclass(cls, BaseModel) else cls)
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
    them, and the bytes it writes share nothing."""

    __slots__ = ("aside",)

    def __init__(self) -> None:
        self.aside: list[Any] = []

    def model(self, model: BaseModel) -> Any:
        cls = type(model)
        cid = _ids.get(cls)
        if cid is None:
            cid = _class_id(cls)
            if cid is None:
                return self.keep(copy_model(model))
        info: _Model = _classes[cid]
        values = model.__dict__
        if not info.plain or len(values) != len(info.names):
            return self.keep(copy_model(model))
        try:
            return info.encode(values, model.__pydantic_fields_set__, self.value)
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
            for key in value:
                if type(key) not in leaves:
                    return self.keep(copy_value(value))
            encode = self.value
            return {k: v if type(v) in leaves else encode(v) for k, v in value.items()}
        if kind is list:
            encode = self.value
            return [v if type(v) in leaves else encode(v) for v in value]
        if isinstance(value, BaseModel):
            return self.model(value)
        if kind is tuple:
            encode = self.value
            return (_TUPLE, *[encode(v) for v in value])
        if isinstance(value, enum.Enum):
            cid = _ids.get(kind) or _class_id(kind)
            if cid is not None:
                member = value.value
                return (cid, member if type(member) in leaves else self.value(member))
        elif kind in _SETS and all(type(v) in leaves for v in value):
            return value
        return self.keep(copy_value(value))

    def keep(self, value: Any) -> tuple[int, int]:
        """Keeps ``value`` (a private deep copy) aside."""
        self.aside.append(value)
        return (_ASIDE, len(self.aside) - 1)


def encode(model: BaseModel) -> Encoded:
    """``model`` (an event) in compact form; shares nothing mutable with it."""
    encoder = _Encoder()
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
    info = _classes[cid]
    if type(info) is not _Model or not issubclass(info.cls, cls):
        raise TypeError(f"Not an encoded {cls.__name__}.")
    index = info.names.index(name)
    present = root[1]
    if not present >> index & 1:
        return None
    position = 2 + (present & ((1 << index) - 1)).bit_count()
    return _Decoder(aside).value(root[position])


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
            info = _classes[cid]
            if type(info) is not _Model:
                return info(self.value(value[1]))  # an enum member
            return self.model(info, header, value)
        if kind is list:
            decode = self.value
            return [decode(v) for v in value]
        if kind is dict:
            decode = self.value
            return {k: decode(v) for k, v in value.items()}
        return value  # a leaf, or a set of leaves: marshal made a new one

    def model(self, info: _Model, header: int, value: tuple[Any, ...]) -> BaseModel:
        decode = self.value
        leaves = _LEAVES
        present = value[1]
        given = iter(value[2:])
        data: dict[str, Any] = {}
        for i, name in enumerate(info.names):
            if present >> i & 1:
                v = next(given)
                data[name] = v if type(v) in leaves else decode(v)
            else:
                data[name] = None
        new = _new(info.cls)
        _set(new, "__dict__", data)
        _set(new, "__pydantic_fields_set__", info.fields_set(header))
        _set(new, "__pydantic_extra__", None)
        _set(new, "__pydantic_private__", None)
        return new
