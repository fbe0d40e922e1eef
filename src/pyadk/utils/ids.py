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


def new_uuid4() -> str:
    """A unique id in ``str(uuid.uuid4())`` format, at a fraction of its cost.

    Ids only need to be unique, not secret (session ids do not come from here): 76
    random bits drawn once per process (and again in a forked child), then a 48-bit
    counter that starts at a random value. Ids of one process share their first 24
    characters."""
    return _prefix + (next(_counter) & _COUNTER_MASK).to_bytes(6, "big").hex()
