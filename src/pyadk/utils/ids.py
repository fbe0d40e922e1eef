"""Ids for events, invocations and function calls."""

from __future__ import annotations

import itertools
import os
from random import SystemRandom

_VARIANT = "89ab"
_COUNTER_MASK = (1 << 48) - 1


def _random_prefix() -> tuple[str, itertools.count[int]]:
    rng = SystemRandom()
    h = f"{rng.getrandbits(80):020x}"
    prefix = f"{h[:8]}-{h[8:12]}-4{h[12:15]}-{_VARIANT[int(h[15], 16) & 3]}{h[16:19]}-"
    return prefix, itertools.count(rng.getrandbits(47))


_prefix, _counter = _random_prefix()


def _reseed() -> None:
    global _prefix, _counter
    _prefix, _counter = _random_prefix()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_reseed)  # a forked child gets its own prefix


_VERSION_4 = 0x4000 << 64  # version bits (48-51 of the 128), cleared first
_VERSION_MASK = ~(0xF000 << 64)
_VARIANT_RFC = 0x8000 << 48  # variant bits (64-65), cleared first
_VARIANT_MASK = ~(0xC000 << 48)


def random_uuid4() -> str:
    """``str(uuid.uuid4())``: 122 random bits from the OS, for ids that must not be
    guessed (session ids); formatted without building a ``uuid.UUID``."""
    n = int.from_bytes(os.urandom(16), "big") & _VERSION_MASK & _VARIANT_MASK
    h = f"{n | _VERSION_4 | _VARIANT_RFC:032x}"
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def new_uuid4() -> str:
    """A unique id in ``str(uuid.uuid4())`` format, at a fraction of its cost.

    Ids only need to be unique, not secret (session ids do not come from here): 76
    random bits drawn once per process (and again in a forked child), then a 48-bit
    counter that starts at a random value. Ids of one process share their first 24
    characters."""
    return _prefix + (next(_counter) & _COUNTER_MASK).to_bytes(6, "big").hex()
