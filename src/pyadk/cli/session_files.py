"""The files `pyadk run` reads and writes: replay inputs and saved sessions.

Both use google-adk's formats, so files move between the two tools:

- a replay file is ``{"state": {...}, "queries": ["...", ...]}``;
- a saved session is a :class:`~pyadk.sessions.session.Session` as JSON, written to
  ``<agent_dir>/<session_id>.session.json``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, Field, ValidationError

from pyadk.cli.errors import CliError
from pyadk.sessions.session import Session

_M = TypeVar("_M", bound=BaseModel)


class SessionFileError(CliError):
    """A replay or session file is missing or malformed."""


class ReplayFile(BaseModel):
    """Queries to run one after the other in a new session that starts with ``state``."""

    state: dict[str, Any] = Field(default_factory=dict)
    queries: list[str]


def read_replay_file(path: str | Path) -> ReplayFile:
    """The replay file at ``path``; SessionFileError naming the file when unreadable."""
    return _read(path, ReplayFile, 'a JSON object {"state": {...}, "queries": ["...", ...]}')


def read_session_file(path: str | Path) -> Session:
    """The saved session at ``path``; SessionFileError naming the file when unreadable."""
    return _read(path, Session, "a session saved by `pyadk run --save-session`")


def session_file_path(agent_dir: str | Path, session_id: str) -> Path:
    """Where ``--save-session`` writes the session ``session_id``."""
    return Path(agent_dir) / f"{session_id}.session.json"


def write_session_file(session: Session, path: str | Path) -> Path:
    """Writes ``session`` as JSON (google-adk's layout: field names, no null fields)."""
    target = Path(path)
    target.write_text(session.model_dump_json(indent=2, exclude_none=True), encoding="utf-8")
    return target


def _read(path: str | Path, model: type[_M], expected: str) -> _M:
    source = Path(path)
    try:
        text = source.read_text(encoding="utf-8")
    except OSError as error:
        raise SessionFileError(f"Cannot read {source}: {error.strerror or error}") from error
    try:
        return model.model_validate_json(text)
    except ValidationError as error:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or '(file)'}: {e['msg']}"
            for e in error.errors()[:5]
        )
        raise SessionFileError(f"Invalid file {source}: expected {expected}. {problems}") from error
