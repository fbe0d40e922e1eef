"""CPython's own attribute lookup for pyadk's pydantic models.

pydantic's ``BaseModel`` defines ``__getattr__``, which it needs for private attributes
and extra fields. Any class with ``__getattr__`` gets a slot wrapper as its attribute
lookup, and CPython 3.11's interpreter does not specialize ``LOAD_ATTR`` for such a
class (3.12 and 3.13 do in part): every read of a model field (``event.content``,
``part.text``) takes the slow path through the wrapper. In a PoC 6 run that is about
a tenth of pyadk's instructions.

For a model class without private attributes, without ``extra="allow"`` and without its
own ``__getattr__`` or ``__getattribute__``, pydantic's ``__getattr__`` only ever
raises ``AttributeError`` with the message CPython's lookup gives, so that lookup
(``PyObject_GenericGetAttr``) returns and raises exactly the same. :func:`enable`
gives it back to such classes: those created from :class:`PlainAttributeLookup`
subclasses (pyadk's models, and subclasses a program derives from them). A class that
does not qualify keeps pydantic's lookup, as does any class once a program assigns
``__getattr__`` or ``__getattribute__`` to it (CPython recomputes the slot then).

The slot is written through ``ctypes``, after checking that it sits where CPython's
type layout puts it (``object``'s holds ``PyObject_GenericGetAttr``) and that it holds
the wrapper; anywhere else (another interpreter, a free-threaded or debug build, a
layout that differs) nothing changes. ``ctypes`` is imported by :func:`enable`, which
the :class:`~pyadk.runners.Runner` calls, so importing pyadk does not load it.
``PYADK_PLAIN_ATTRIBUTE_LOOKUP=0`` turns it off.
"""

from __future__ import annotations

import functools
import os
import sys
import sysconfig
import threading
import weakref
from typing import Any

from pydantic import BaseModel

ENV_SWITCH = "PYADK_PLAIN_ATTRIBUTE_LOOKUP"
"""Set to ``0`` to keep pydantic's attribute lookup everywhere."""

_SUPPORTED = ((3, 11), (3, 12), (3, 13))
"""CPython versions whose type layout this was checked against."""

_lock = threading.Lock()
_pending: list[weakref.ref[type[BaseModel]]] = []
_slot: _Slot | None = None
_enabled = False
"""Once :func:`enable` ran: classes are given plain lookup as they are created."""


class PlainAttributeLookup:
    """Mixin for pyadk's model classes: :func:`enable` gives each class created from it
    (itself a subclass of ``BaseModel``) CPython's plain attribute lookup when it
    qualifies (see the module docstring)."""

    __slots__ = ()

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)  # type: ignore[misc]
        if issubclass(cls, BaseModel):
            _register(cls)


def _register(cls: type[BaseModel]) -> None:
    with _lock:
        if not _enabled:
            _pending.append(weakref.ref(cls))
            return
    if _slot is not None:
        _slot.give(cls)


def enable() -> None:
    """Gives plain lookup to the qualifying classes created so far and to those created
    after (idempotent; a no-op where it does not apply)."""
    global _enabled, _slot
    with _lock:
        if _enabled:
            return
        _enabled = True
        pending, _pending[:] = list(_pending), []
        if os.environ.get(ENV_SWITCH, "1").strip() != "0":
            _slot = _Slot.find()
    if _slot is None:
        return
    for ref in pending:
        cls = ref()
        if cls is not None:
            _slot.give(cls)


def qualifies(cls: type[BaseModel]) -> bool:
    """True when pydantic's ``__getattr__`` can do nothing for ``cls`` that CPython's
    lookup does not do the same way."""
    return (
        getattr(cls, "__getattr__", None) is BaseModel.__getattr__  # type: ignore[attr-defined]
        and cls.__getattribute__ is object.__getattribute__
        and not cls.__private_attributes__
        and cls.model_config.get("extra") != "allow"
    )


def has_plain_lookup(cls: type) -> bool:
    """True when ``cls`` uses CPython's plain attribute lookup (False where that cannot
    be told: see the module docstring)."""
    slot = _Slot.find()
    return slot is not None and slot.read(cls) == slot.generic


class _Slot:
    """Where a type object keeps its attribute lookup function (``tp_getattro``)."""

    def __init__(self, ctypes: Any, offset: int, generic: int, wrapper: int) -> None:
        self._ctypes = ctypes
        self._offset = offset
        self.generic = generic
        """Address of ``PyObject_GenericGetAttr``."""
        self._wrapper = wrapper
        """Address of the slot wrapper of classes defining ``__getattr__``."""

    @classmethod
    @functools.cache
    def find(cls) -> _Slot | None:
        """The slot, checked against this interpreter (once); None where it does not
        apply."""
        if (
            sys.implementation.name != "cpython"
            or sys.version_info[:2] not in _SUPPORTED
            or sysconfig.get_config_var("Py_GIL_DISABLED")
            or hasattr(sys, "gettotalrefcount")  # a debug build: another object layout
        ):
            return None
        import ctypes

        pointer = ctypes.sizeof(ctypes.c_void_p)
        if pointer != ctypes.sizeof(ctypes.c_ssize_t):
            return None
        # PyTypeObject: refcount, type, size, tp_name, basicsize, itemsize, then 12
        # pointers (tp_dealloc ... tp_str) before tp_getattro.
        offset = 18 * pointer
        name_offset = 3 * pointer
        generic = ctypes.cast(ctypes.pythonapi.PyObject_GenericGetAttr, ctypes.c_void_p).value
        if not generic:
            return None
        read = ctypes.c_void_p.from_address
        name = ctypes.c_char_p.from_address(id(object) + name_offset).value
        if name != b"object" or read(id(object) + offset).value != generic:
            return None

        class _WithGetattr:
            def __getattr__(self, name: str) -> Any:
                raise AttributeError(name)

        wrapper = read(id(_WithGetattr) + offset).value
        if not wrapper or wrapper == generic or read(id(BaseModel) + offset).value != wrapper:
            return None
        modified = ctypes.pythonapi.PyType_Modified
        modified.argtypes, modified.restype = [ctypes.py_object], None
        return cls(ctypes, offset, generic, wrapper)

    def _cell(self, cls: type) -> Any:
        """``cls``'s slot, as a ``ctypes.c_void_p`` over the type object's memory."""
        return self._ctypes.c_void_p.from_address(id(cls) + self._offset)

    def read(self, cls: type) -> int | None:
        value: int | None = self._cell(cls).value
        return value

    def give(self, cls: type[BaseModel]) -> None:
        """Gives ``cls`` plain lookup if it qualifies and still has pydantic's."""
        if not qualifies(cls):
            return
        with _lock:
            if self.read(cls) != self._wrapper:
                return
            self._cell(cls).value = self.generic
            # Drop what the interpreter cached about the class (specialized lookups).
            self._ctypes.pythonapi.PyType_Modified(cls)


__all__ = ["ENV_SWITCH", "PlainAttributeLookup", "enable", "has_plain_lookup", "qualifies"]
