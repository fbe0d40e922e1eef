"""Splitting state into app-, user- and session-scoped parts, and merging it back."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pyadk.sessions.state import State


def split_scoped_state(
    state: dict[str, Any], value_copy: Callable[[Any], Any] | None = None
) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """(app, user, session) parts of ``state``; prefixes stripped, ``temp:`` dropped;
    each value passed through ``value_copy`` when given (one pass for both)."""
    app: dict[str, Any] = {}
    user: dict[str, Any] = {}
    own: dict[str, Any] = {}
    for key, value in state.items():
        if value_copy is not None:
            value = value_copy(value)
        if ":" not in key:  # no prefix: the common case, one check
            own[key] = value
        elif key.startswith(State.APP_PREFIX):
            app[key[len(State.APP_PREFIX) :]] = value
        elif key.startswith(State.USER_PREFIX):
            user[key[len(State.USER_PREFIX) :]] = value
        elif not key.startswith(State.TEMP_PREFIX):
            own[key] = value
    return app, user, own


def merge_scoped_state(
    app: dict[str, Any], user: dict[str, Any], own: dict[str, Any]
) -> dict[str, Any]:
    """A session's full state: its own keys plus prefixed app and user keys."""
    merged = dict(own)
    merged.update({State.APP_PREFIX + k: v for k, v in app.items()})
    merged.update({State.USER_PREFIX + k: v for k, v in user.items()})
    return merged
