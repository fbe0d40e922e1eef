"""State: a session's key/value state with a record of what changed (the delta)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any


class State:
    """A dict-like view of session state that records every write in ``delta``.

    Reads see the delta first, then the underlying value. Keys prefixed ``app:`` are
    shared by all users of the app, ``user:`` by all sessions of a user, and ``temp:``
    live for the current invocation only (never persisted).
    """

    APP_PREFIX = "app:"
    USER_PREFIX = "user:"
    TEMP_PREFIX = "temp:"

    __slots__ = ("_delta", "_value")

    def __init__(self, value: dict[str, Any], delta: dict[str, Any]) -> None:
        self._value = value
        self._delta = delta

    def __getitem__(self, key: str) -> Any:
        if key in self._delta:
            return self._delta[key]
        return self._value[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self._value[key] = value
        self._delta[key] = value

    def __contains__(self, key: object) -> bool:
        return key in self._delta or key in self._value

    def __iter__(self) -> Iterator[str]:
        return iter(self.to_dict())

    def __len__(self) -> int:
        return len(self.to_dict())

    def __repr__(self) -> str:
        return f"State({self.to_dict()!r})"

    def get(self, key: str, default: Any = None) -> Any:
        """The value of ``key``, or ``default``."""
        if key in self._delta:
            return self._delta[key]
        return self._value.get(key, default)

    def setdefault(self, key: str, default: Any = None) -> Any:
        """The value of ``key``; sets it to ``default`` first when missing."""
        if key not in self:
            self[key] = default
        return self[key]

    def update(self, other: Mapping[str, Any] | None = None, **kwargs: Any) -> None:
        """Sets several keys at once."""
        for key, value in {**(other or {}), **kwargs}.items():
            self[key] = value

    def keys(self) -> list[str]:
        """Every key, delta included."""
        return list(self.to_dict())

    def items(self) -> list[tuple[str, Any]]:
        """Every (key, value) pair, delta included."""
        return list(self.to_dict().items())

    def has_delta(self) -> bool:
        """True when something was written through this view."""
        return bool(self._delta)

    def to_dict(self) -> dict[str, Any]:
        """A plain dict of the current state (value overlaid with the delta)."""
        return {**self._value, **self._delta}
