"""Class ids and generated code for :mod:`pyadk.sessions._event_codec`.

Each model class the codec meets gets a class id (an index into :data:`classes`) and a
:class:`Layout`: its fields in order, what kind of value each holds, and two functions
generated for it once, in straight-line code:

- ``encode(model, value, model_encoder)`` -> ``(header, value of each field, in order)``.
  A field whose annotation admits only plain values (``str | None``, ``set[str]``, ...)
  is taken as it is; a model in a field annotated with a model class (or a list of
  them) goes straight to the ``encode`` of that class (bound on first use) when it is
  of that class, else to that of its own class when that class is registered and plain
  (:data:`direct`), else to ``model_encoder``; an enum member in a field annotated with
  an enum class is looked up in :data:`members`; anything else goes through ``value()``
  unless it is a leaf (or an empty dict or list; a field whose default is one is
  checked for it first). The header is looked up by fields set (as a tuple) in
  :attr:`Layout.headers`. It raises KeyError when the model's ``__dict__`` does not
  hold exactly its fields, or its fields set holds an unknown name. (Reading the fields
  with ``operator.itemgetter`` instead, or unpacking ``__dict__.values()`` once its
  keys are checked to be in order, or checking the fields that are usually None in one
  C call, or summing the fields' bits instead of the header cache, measured slower on
  Python 3.11.)
- ``decode(encoded, value)`` -> the new model's ``__dict__``.

A class whose layout takes fields as they are also gets a *strict* layout (the next
class id) that takes nothing as it is: for models whose fields hold values their
annotations do not admit.
"""

from __future__ import annotations

import enum
import threading
from collections.abc import Callable
from types import UnionType
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel

LEAVES = frozenset({str, int, float, bool, bytes, type(None)})
EMPTY_AS_IS = frozenset({dict, list})
"""Containers that, when empty, are encoded as they are (marshal only reads them)."""

CLASS_BITS = 10
"""A header is ``class id | fields-set bits << CLASS_BITS``: one int, 5 bytes."""
MAX_CLASSES = 1 << CLASS_BITS
CLASS_MASK = MAX_CLASSES - 1

TUPLE = 0
"""Class id of a plain tuple: ``(0, *items)``."""
ASIDE = 1
"""Class id of a value kept aside: ``(1, index)``."""

_RAW, _MODEL, _MODELS, _ENUM, _ANY = "raw", "model", "models", "enum", "any"
"""Field kinds: plain values only (taken as they are), a model or None, a list of models
or None, an enum member or None, anything else."""

_MAX_CACHED = 1024
"""Fields sets cached per layout, each way."""

Convert = Callable[[Any], Any]
ModelEncoder = Callable[[Any, Convert, Convert], tuple[Any, ...]]
ModelDecoder = Callable[[tuple[Any, ...], Convert], dict[str, Any]]


class Layout:
    """How one model class is encoded (see the module docstring)."""

    __slots__ = (
        "bits",
        "cid",
        "cls",
        "decode",
        "encode",
        "headers",
        "names",
        "plain",
        "raw",
        "sets",
        "strict",
    )

    encode: ModelEncoder
    decode: ModelDecoder

    def __init__(self, cls: type[BaseModel], cid: int, kinds: tuple[str, ...]) -> None:
        self.cid = cid
        self.cls = cls
        self.names = tuple(cls.model_fields)
        self.raw = tuple(kind == _RAW for kind in kinds)
        self.bits = {name: 1 << (i + CLASS_BITS) for i, name in enumerate(self.names)}
        self.plain = _is_plain(cls)
        """Nothing but fields: no private attributes, no extra fields."""
        self.sets: dict[int, frozenset[str]] = {}
        self.headers: dict[tuple[str, ...], int] = {}
        """Fields set, as a tuple in the set's order -> header: the reverse of ``sets``,
        for the encoder (a set of the same names in another order is another key)."""
        self.strict = cid
        """The class id of the layout that takes no field as it is (this one, or the next)."""

    def header(self, fields_set: set[str]) -> int:
        """The header of a model of this layout whose fields set is ``fields_set``
        (KeyError for a name that is not a field)."""
        names = tuple(fields_set)
        header = self.cid + sum(map(self.bits.__getitem__, names))
        if len(self.headers) < _MAX_CACHED:
            self.headers[names] = header
        return header

    def fields_set(self, header: int) -> set[str]:
        """The names of the fields whose bits ``header`` has."""
        names = self.sets.get(header)
        if names is None:
            mask = header >> CLASS_BITS
            names = frozenset(n for i, n in enumerate(self.names) if mask >> i & 1)
            if len(self.sets) < _MAX_CACHED:
                self.sets[header] = names
        return set(names)


def _is_plain(cls: type[BaseModel]) -> bool:
    return not cls.__private_attributes__ and cls.model_config.get("extra") != "allow"


classes: list[Any] = [tuple, None]
"""Class id -> a :class:`Layout` for a model class, the class itself for an enum."""
ids: dict[type, int] = {}
"""Class -> class id, for classes whose registration is complete."""
direct: dict[type, ModelEncoder] = {}
"""Plain model class -> its (non-strict) encoder: what nested model fields call."""
members: dict[int, tuple[int, Any]] = {}
"""``id()`` of an enum member whose value is a leaf -> its encoding, ``(class id, value)``
(``Enum.__hash__`` runs in Python). The members are kept (:func:`remember`), so an id
names one member for good."""
_kept_members: list[enum.Enum] = []
_MAX_MEMBERS = 4096
_register_lock = threading.Lock()


def remember(member: enum.Enum, code: tuple[int, Any]) -> None:
    """Adds ``member`` and its encoding to :data:`members` (while it has room)."""
    if len(members) < _MAX_MEMBERS:
        _kept_members.append(member)
        members[id(member)] = code


def class_id(cls: type) -> int | None:
    """The class's id (registered on first use); None once the table is full."""
    cid = ids.get(cls)
    if cid is not None:
        return cid
    with _register_lock:
        cid = ids.get(cls)
        if cid is not None:
            return cid
        if len(classes) + 2 > MAX_CLASSES:
            return None
        cid = len(classes)
        if not issubclass(cls, BaseModel):
            classes.append(cls)
            ids[cls] = cid
            return cid
        kinds = tuple(_field_kind(f.annotation) for f in cls.model_fields.values())
        layout = Layout(cls, cid, kinds)
        classes.append(layout)
        layouts = [(layout, kinds)]
        if _RAW in kinds:
            layout.strict = cid + 1
            strict_kinds = tuple(_ANY if kind == _RAW else kind for kind in kinds)
            strict = Layout(cls, cid + 1, strict_kinds)
            classes.append(strict)
            layouts.append((strict, strict_kinds))
        for each, each_kinds in layouts:
            each.encode = _model_encoder(each, each_kinds, strict=each is not layout)
            each.decode = _model_decoder(each.names, each.raw)
        if layout.plain:
            direct[cls] = layout.encode
        ids[cls] = cid
    return cid


def _field_kind(annotation: Any) -> str:
    """What a field so annotated holds, as far as the encoder cares."""
    if _holds_leaves(annotation):
        return _RAW
    if _annotated_class(annotation, BaseModel) is not None:
        return _MODEL
    if _annotated_class(annotation, BaseModel, in_list=True) is not None:
        return _MODELS
    if _annotated_class(annotation, enum.Enum) is not None:
        return _ENUM
    return _ANY


def _annotated_class(annotation: Any, base: type, in_list: bool = False) -> type | None:
    """The ``base`` subclass ``C`` of a ``C | None`` (or ``list[C] | None``) annotation."""
    if get_origin(annotation) in (Union, UnionType):
        others = [arg for arg in get_args(annotation) if arg is not type(None)]
        if len(others) != 1:
            return None
        annotation = others[0]
    if in_list:
        if get_origin(annotation) is not list or len(get_args(annotation)) != 1:
            return None
        (annotation,) = get_args(annotation)
    if isinstance(annotation, type) and issubclass(annotation, base):
        return annotation
    return None


def _holds_leaves(annotation: Any) -> bool:
    """Whether every value of a field so annotated is one ``marshal`` copies exactly and
    the decoder keeps as it is: leaves, and lists, sets, tuples and dicts of leaves."""
    if annotation in LEAVES:
        return True
    origin, args = get_origin(annotation), get_args(annotation)
    if origin is Literal:
        return all(type(arg) in LEAVES for arg in args)
    if origin is Annotated:
        return _holds_leaves(args[0])
    if origin in (Union, UnionType, list, set, frozenset, tuple, dict) and args:
        return all(arg is Ellipsis or _holds_leaves(arg) for arg in args)
    return False


def _generated(source: list[str], name: str, namespace: dict[str, Any]) -> Any:
    namespace["leaves"] = LEAVES
    exec("\n".join(source), namespace)  # the code holds only field names, as literals
    return namespace[name]


def _converted(get: str) -> str:
    """Code for the value ``get`` reads, passed to ``value()`` unless it is a leaf."""
    return f"(v if type(v := {get}) in leaves else value(v))"


def _via_model(value: Any, _: Convert, model: Convert) -> Any:
    return model(value)


def _binding(namespace: dict[str, Any], name: str) -> ModelEncoder:
    """What a generated encoder calls as ``name`` for a nested model of the field's
    annotated class until that class has an encoder (:data:`direct`): looks it up, and
    once there is one, binds it as ``name`` in the encoder's ``namespace``."""

    def bind(value: Any, convert: Convert, model: Convert) -> Any:
        encoder = direct.get(type(value))
        if encoder is None:
            return model(value)
        namespace[name] = encoder
        return encoder(value, convert, model)

    return bind


def _model_encoder(layout: Layout, kinds: tuple[str, ...], strict: bool) -> ModelEncoder:
    """The encoding function of ``layout``; ``strict``: nested models
    go to ``model()`` too (which encodes them strictly), not to their classes' encoders.

    The header comes from a cache keyed by the fields set as a tuple (cheaper than
    adding the fields' bits each time, or than a frozenset key); a nested model of the
    field's annotated class goes to that class's encoder, bound on first use (else it is
    looked up by its class); a field whose default is an empty dict or list is checked
    for that first; a list of models holds one model most of the time, and is then built
    without a comprehension (a function call in Python 3.11)."""
    namespace: dict[str, Any] = {
        "headers": layout.headers,
        "header_of": layout.header,
        "empties": EMPTY_AS_IS,
        "encoder_of": direct.get,
        "member": members.get,
        "via_model": _via_model,
    }
    header = (
        f"({layout.cid} if not (s := m.__pydantic_fields_set__) else h "
        "if (h := headers.get(tuple(s))) is not None else header_of(s))"
    )
    items = [header]
    for i, (name, kind) in enumerate(zip(layout.names, kinds, strict=True)):
        get = f"d[{name!r}]"
        call = "model({0})"
        if not strict and kind in (_MODEL, _MODELS):
            annotation = layout.cls.model_fields[name].annotation
            namespace[f"cls_{i}"] = _annotated_class(annotation, BaseModel, kind == _MODELS)
            namespace[f"enc_{i}"] = _binding(namespace, f"enc_{i}")
            call = (
                f"(enc_{i} if type({{0}}) is cls_{i} else encoder_of(type({{1}})) or via_model)"
                "({1}, value, model)"
            )
        if kind == _RAW:
            items.append(get)
        elif kind == _MODEL:
            items.append(f"(v if (v := {get}) is None else {call.format('v', 'v')})")
        elif kind == _MODELS:
            one, each = call.format("p := v[0]", "p"), call.format("p", "p")
            items.append(
                f"(v if (v := {get}) is None else value(v) if type(v) is not list "
                f"else [{one}] if len(v) == 1 else [{each} for p in v])"
            )
        elif kind == _ENUM:  # or whatever the field holds
            items.append(
                f"(v if (v := {get}) is None else c if (c := member(id(v))) is not None "
                "else value(v))"
            )
        elif (factory := layout.cls.model_fields[name].default_factory) in EMPTY_AS_IS:
            # Usually its empty default: checked first (then as below).
            items.append(
                f"(v if (t := type(v := {get})) is {factory.__name__} and not v "
                "or v is None or t in leaves or (t in empties and not v) else value(v))"
            )
        else:  # an empty dict or list is taken as it is
            items.append(
                f"(v if (v := {get}) is None or (t := type(v)) in leaves "
                "or (t in empties and not v) else value(v))"
            )
    source = [
        "def encode(m, value, model):",
        "    d = m.__dict__",
        f"    if len(d) != {len(layout.names)}:",
        "        raise KeyError('fields')",
        f"    return ({', '.join(items)},)",
    ]
    encoder: ModelEncoder = _generated(source, "encode", namespace)
    return encoder


def _model_decoder(names: tuple[str, ...], raw: tuple[bool, ...]) -> ModelDecoder:
    """The decoding function of one layout: the model's ``__dict__`` in one dict display."""
    items = []
    for i, (name, as_is) in enumerate(zip(names, raw, strict=True), start=1):
        get = f"e[{i}]"
        items.append(f"{name!r}: {get if as_is else _converted(get)}")
    source = ["def decode(e, value):", f"    return {{{', '.join(items)}}}"]
    decoder: ModelDecoder = _generated(source, "decode", {})
    return decoder
