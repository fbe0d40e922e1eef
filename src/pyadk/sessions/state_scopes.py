"""Splitting state into app-, user- and session-scoped parts, and merging it back."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pyadk.sessions.state import State


def split_scoped_state(
    state: dict[str, Any], value_copy: Callable[[Any], Any] | None = None
) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """(app, user, session) parts of ``state``; prefixes stripped, ``temp:`` dropped;
    each value but a leaf (str, int, ...: immutable) passed through ``value_copy`` when
    given (one pass for both)."""
    app: dict[str, Any] = {}
    user: dict[str, Any] = {}
    own: dict[str, Any] = {}
    for key, value in state.items():
        if value_copy is not None and type(value) not in _LEAVES:
            value = value_copy(value)
        if not key.startswith(_PREFIXES):  # the common case, one check
            own[key] = value
        elif key.startswith(_APP):
            app[key[_APP_LEN:]] = value
        elif key.startswith(_USER):
            user[key[_USER_LEN:]] = value
    return app, user, own


_APP, _USER = State.APP_PREFIX, State.USER_PREFIX
_APP_LEN, _USER_LEN = len(_APP), len(_USER)
_PREFIXES = (_APP, _USER, State.TEMP_PREFIX)
_LEAVES = frozenset({str, int, float, bool, bytes, type(None)})


def merge_scoped_state(
    app: dict[str, Any], user: dict[str, Any], own: dict[str, Any]
) -> dict[str, Any]:
    """A session's full state: its own keys plus prefixed app and user keys."""
    merged = dict(own)
    if app:
        merged.update({_APP + k: v for k, v in app.items()})
    if user:
        merged.update({_USER + k: v for k, v in user.items()})
    return merged
