"""Random ids for events, invocations and function calls."""

from __future__ import annotations

import os

_VARIANT = "89ab"


def new_uuid4() -> str:
    """``str(uuid.uuid4())`` at a third of its cost: same randomness, same format."""
    h = os.urandom(16).hex()
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{_VARIANT[int(h[16], 16) & 3]}{h[17:20]}-{h[20:]}"
