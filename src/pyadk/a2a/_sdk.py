"""The a2a-sdk import guard: a missing SDK names the extra that installs it."""

from __future__ import annotations

import importlib.util

INSTALL_HINT = "pip install 'pyadk[a2a]'"


def require_a2a_sdk() -> None:
    """Raises ImportError naming the ``a2a`` extra when a2a-sdk 1.x is not installed."""
    if importlib.util.find_spec("a2a") is None:
        raise ImportError(f"A2A support needs the a2a-sdk package; install it with: {INSTALL_HINT}")
    try:
        from a2a.types import StreamResponse  # noqa: F401  (only in a2a-sdk 1.x)
    except ImportError as error:
        raise ImportError(
            f"A2A support needs a2a-sdk 1.x (found an older one); upgrade with: {INSTALL_HINT}"
        ) from error
