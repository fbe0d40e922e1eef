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
stores). Other values are walked in Python, except that a list, tuple or set, or a dict
of 4 items or more, is first checked in C for holding only leaves, and an enum member's
encoding is remembered. (Handing a whole dict of plain data to a nested ``marshal``
call is not exact without that walk: ``marshal`` writes any buffer, a ``bytearray`` or
``memoryview``, as ``bytes``.)
"""

from __future__ import annotations

import enum
import marshal
from typing import Any, TypeVar

from pydantic import BaseModel

from pyadk.sessions._codec_layouts import (
    ASIDE,
    CLASS_MASK,
    LEAVES,
    TUPLE,
    Layout,
    ModelEncoder,
    class_id,
    classes,
    direct,
    ids,
    members,
    remember,
)
from pyadk.utils.fast_models import assembled, copy_model, copy_value

_M = TypeVar("_M", bound=BaseModel)

_SETS = (set, frozenset)

_CHECKED_IN_C = 4
"""From this size on, a dict is first checked in C for holding only leaves (cheaper than
the walk from there; a list is always checked first)."""

_MARSHAL_VERSION = 2
"""Format 2 keeps no table of the objects written (3 and 4 do, to share repeated ones):
~20% faster to write and read, ~15% larger (an event's strings rarely repeat)."""


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
    it is: for models whose fields hold values their annotations do not admit.

    No ``__init__`` and no slots: an encoder is made for each event, and this is the
    cheapest object to make."""

    strict = False
    aside: list[Any] | None = None
    """The values kept aside (a list of this encoder's own once one is)."""

    def model(self, model: BaseModel) -> Any:
        """Encodes a model (anything else goes to :meth:`value`)."""
        cls = type(model)
        cid = ids.get(cls)
        if cid is None:
            if not isinstance(model, BaseModel):
                return self.value(model)
            cid = class_id(cls)
            if cid is None:
                return self.keep(copy_model(model))
        layout = classes[cid]
        if type(layout) is not Layout:  # an enum member
            return self.value(model)
        if self.strict:
            layout = classes[layout.strict]
        if not layout.plain:
            return self.keep(copy_model(model))
        try:
            return layout.encode(model, self.value, self.model)
        except KeyError:  # __dict__ is not exactly the fields, or an unknown name is set
            return self.keep(copy_model(model))

    def value(self, value: Any) -> Any:
        kind = type(value)
        leaves = LEAVES
        if kind in leaves:
            return value
        if kind is dict:
            if not value:
                return value  # marshal only reads it
            if len(value) >= _CHECKED_IN_C and (
                leaves.issuperset(map(type, value.values())) and leaves.issuperset(map(type, value))
            ):
                return value  # of leaves only: marshal only reads it
            out = {}
            for k, v in value.items():
                if type(k) not in leaves:
                    return self.keep(copy_value(value))
                out[k] = v if type(v) in leaves else self.value(v)
            return out
        if kind is list:
            if leaves.issuperset(map(type, value)):
                return value
            encode = self.value
            return [v if type(v) in leaves else encode(v) for v in value]
        code = members.get(id(value))  # an enum member seen before
        if code is not None:
            return code
        cid = ids.get(kind)  # a model or enum class seen before
        if cid is None:
            if isinstance(value, BaseModel):
                return self.model(value)
            if isinstance(value, enum.Enum):
                cid = class_id(kind)
        if cid is not None:
            if type(classes[cid]) is Layout:
                return self.model(value)
            member = value._value_  # not .value: a descriptor call
            if type(member) in leaves:
                code = (cid, member)
                remember(value, code)
                return code
            return (cid, self.value(member))
        if kind is tuple:
            if leaves.issuperset(map(type, value)):
                return (TUPLE, *value)
            encode = self.value
            return (TUPLE, *[encode(v) for v in value])
        if kind in _SETS and leaves.issuperset(map(type, value)):
            return value
        return self.keep(copy_value(value))

    def keep(self, value: Any) -> tuple[int, int]:
        """Keeps ``value`` (a private deep copy) aside."""
        aside = self.aside
        if aside is None:
            aside = self.aside = []
        aside.append(value)
        return (ASIDE, len(aside) - 1)


class _StrictEncoder(_Encoder):
    strict = True


class _NeedsAside(Exception):
    """Raised by the shared encoder where a value must be kept aside."""


class _SharedEncoder(_Encoder):
    """The encoder of events that keep nothing aside (nearly all): one for the process,
    holding no state, so no encoder object and bound methods are made per event."""

    def keep(self, value: Any) -> tuple[int, int]:
        raise _NeedsAside


_shared = _SharedEncoder()
_shared_value = _shared.value
_shared_model = _shared.model


def encode(model: BaseModel) -> Encoded:
    """``model`` (an event) in compact form; shares nothing mutable with it."""
    top = direct.get(type(model))  # what encoder.model() would call, looked up once
    if top is not None:
        try:
            return marshal.dumps(top(model, _shared_value, _shared_model), _MARSHAL_VERSION)
        except (KeyError, ValueError, _NeedsAside):
            pass  # the general path below meets the same case, and handles it
    return _encoded(model, top)


def _encoded(model: BaseModel, top: ModelEncoder | None) -> Encoded:
    """:func:`encode` with an encoder of its own: values kept aside, fields that hold
    what their annotations do not admit."""
    encoder = _Encoder()
    try:
        if top is None:
            tree = encoder.model(model)
        else:
            try:
                tree = top(model, encoder.value, encoder.model)
            except KeyError:  # as in encoder.model()
                encoder = _Encoder()
                tree = encoder.keep(copy_model(model))
        data = marshal.dumps(tree, _MARSHAL_VERSION)
    except ValueError:  # a field typed for plain values holds something marshal refuses
        encoder = _StrictEncoder()
        data = marshal.dumps(encoder.model(model), _MARSHAL_VERSION)
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
    cid = root[0] & CLASS_MASK
    if cid == ASIDE:
        return getattr(aside[root[1]], name)
    layout = classes[cid]
    if type(layout) is not Layout or not issubclass(layout.cls, cls):
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
            cid = header & CLASS_MASK
            if cid == TUPLE:
                return tuple([self.value(v) for v in value[1:]])
            if cid == ASIDE:
                return copy_value(self.aside[value[1]])
            layout = classes[cid]
            if type(layout) is not Layout:
                return layout(self.value(value[1]))  # an enum member
            return assembled(
                layout.cls, layout.decode(value, self.value), layout.fields_set(header)
            )
        if kind is list:
            decode = self.value
            return [decode(v) for v in value]
        if kind is dict:
            decode = self.value
            return {k: decode(v) for k, v in value.items()}
        return value  # a leaf, or a set of leaves: marshal made a new one
