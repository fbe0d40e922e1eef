"""InMemoryArtifactService: artifacts kept in process memory (tests, demos)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ValidationError

from pyadk import types
from pyadk.artifacts.base_artifact_service import USER_NAMESPACE_PREFIX, BaseArtifactService

_Path = tuple[str, str, str | None, str]
"""(app_name, user_id, session_id or None for user-scoped, filename)."""


def _check_filename(filename: Any) -> str:
    if not isinstance(filename, str):
        raise TypeError(f"Artifact filename must be a str, got {type(filename).__name__}.")
    if not filename.removeprefix(USER_NAMESPACE_PREFIX).strip():
        raise ValueError(f"Artifact filename must not be empty (got {filename!r}).")
    return filename


def _as_part(filename: str, artifact: Any) -> types.Part:
    """A private deep copy of ``artifact`` as a pyadk Part (google-genai Parts accepted)."""
    if isinstance(artifact, types.Part):
        return artifact.model_copy(deep=True)
    if isinstance(artifact, BaseModel) and type(artifact).__name__ == "Part":
        try:
            return types.Part.model_validate(artifact)
        except ValidationError as exc:
            raise TypeError(
                f"Artifact {filename!r} could not be converted to a Part: {exc}"
            ) from exc
    raise TypeError(f"Artifact {filename!r} must be a types.Part, got {type(artifact).__name__}.")


class InMemoryArtifactService(BaseArtifactService):
    """Keeps artifacts in memory, each path mapped to its list of versions.

    Saved parts are deep-copied and loads return copies, so callers cannot change what
    is stored.
    """

    def __init__(self) -> None:
        self._artifacts: dict[_Path, list[types.Part]] = {}

    @staticmethod
    def _path(app_name: str, user_id: str, session_id: str, filename: str) -> _Path:
        if filename.startswith(USER_NAMESPACE_PREFIX):
            return (app_name, user_id, None, filename)
        return (app_name, user_id, session_id, filename)

    async def save_artifact(
        self,
        *,
        app_name: str,
        user_id: str,
        session_id: str,
        filename: str,
        artifact: types.Part,
    ) -> int:
        _check_filename(filename)
        part = _as_part(filename, artifact)
        versions = self._artifacts.setdefault(
            self._path(app_name, user_id, session_id, filename), []
        )
        versions.append(part)
        return len(versions) - 1

    async def load_artifact(
        self,
        *,
        app_name: str,
        user_id: str,
        session_id: str,
        filename: str,
        version: int | None = None,
    ) -> types.Part | None:
        _check_filename(filename)
        versions = self._artifacts.get(self._path(app_name, user_id, session_id, filename))
        if not versions:
            return None
        if version is None:
            return versions[-1].model_copy(deep=True)
        if not 0 <= version < len(versions):
            return None
        return versions[version].model_copy(deep=True)

    async def list_artifact_keys(
        self, *, app_name: str, user_id: str, session_id: str
    ) -> list[str]:
        return sorted(
            {
                filename
                for (app, user, sid, filename) in self._artifacts
                if app == app_name and user == user_id and sid in (session_id, None)
            }
        )

    async def delete_artifact(
        self, *, app_name: str, user_id: str, session_id: str, filename: str
    ) -> None:
        _check_filename(filename)
        self._artifacts.pop(self._path(app_name, user_id, session_id, filename), None)

    async def list_versions(
        self, *, app_name: str, user_id: str, session_id: str, filename: str
    ) -> list[int]:
        _check_filename(filename)
        versions = self._artifacts.get(self._path(app_name, user_id, session_id, filename), [])
        return list(range(len(versions)))
