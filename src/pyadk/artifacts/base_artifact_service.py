"""BaseArtifactService: the contract of every artifact store."""

from __future__ import annotations

import abc

from pyadk import types

USER_NAMESPACE_PREFIX = "user:"
"""Filenames starting with this prefix are shared by all sessions of a user of an app."""


class BaseArtifactService(abc.ABC):
    """Stores versioned artifacts (files as :class:`~pyadk.types.Part`) per session.

    Each save of a filename adds a new version, numbered from 0. Filenames starting with
    ``user:`` are user-scoped: every session of that user of the app sees the same ones.
    """

    @abc.abstractmethod
    async def save_artifact(
        self,
        *,
        app_name: str,
        user_id: str,
        session_id: str,
        filename: str,
        artifact: types.Part,
    ) -> int:
        """Saves ``artifact`` as a new version of ``filename`` and returns that version."""

    @abc.abstractmethod
    async def load_artifact(
        self,
        *,
        app_name: str,
        user_id: str,
        session_id: str,
        filename: str,
        version: int | None = None,
    ) -> types.Part | None:
        """The given version of ``filename`` (the latest when None), or None if missing."""

    @abc.abstractmethod
    async def list_artifact_keys(
        self, *, app_name: str, user_id: str, session_id: str
    ) -> list[str]:
        """The sorted filenames visible to the session, user-scoped ones included."""

    @abc.abstractmethod
    async def delete_artifact(
        self, *, app_name: str, user_id: str, session_id: str, filename: str
    ) -> None:
        """Deletes every version of ``filename`` (no error if it does not exist)."""

    @abc.abstractmethod
    async def list_versions(
        self, *, app_name: str, user_id: str, session_id: str, filename: str
    ) -> list[int]:
        """The versions of ``filename`` in ascending order; empty if it does not exist."""

    async def close(self) -> None:  # noqa: B027 - optional hook
        """Releases resources held by the service."""
