"""A conformance suite for artifact services: one set of tests, run against every backend.

Subclass :class:`ArtifactServiceConformance` in a test module, under a name pytest
collects, and say how to make the service::

    from pyadk.artifacts import FileArtifactService
    from pyadk.testing.artifact_conformance import ArtifactServiceConformance

    class TestMyFiles(ArtifactServiceConformance):
        @pytest.fixture(autouse=True)
        def _root(self, tmp_path):
            self.root = tmp_path / "artifacts"

        async def make_service(self):
            return FileArtifactService(self.root)

Every test uses a fresh app name, so the services of one class may share a store.
"""

from __future__ import annotations

import uuid
from typing import TypedDict

import pytest

from pyadk import types
from pyadk.artifacts.base_artifact_service import BaseArtifactService
from pyadk.testing._service_fixture import ServiceUnderTest


class Where(TypedDict):
    """The app, user and session an artifact belongs to."""

    app_name: str
    user_id: str
    session_id: str


def _text(value: str) -> types.Part:
    return types.Part(text=value)


class ArtifactServiceConformance(ServiceUnderTest[BaseArtifactService]):
    """The artifact contract: versions, bytes, scopes, deletion, bad input, copies."""

    @pytest.fixture
    def ids(self) -> Where:
        """Where a test's artifacts go: a fresh app, so shared stores stay apart."""
        return Where(app_name=f"app-{uuid.uuid4().hex[:12]}", user_id="u1", session_id="s1")

    async def test_versions_count_from_zero_and_load_any_of_them(
        self, service: BaseArtifactService, ids: Where
    ) -> None:
        for value in ("one", "two", "three"):
            await service.save_artifact(**ids, filename="a.txt", artifact=_text(value))
        assert await service.list_versions(**ids, filename="a.txt") == [0, 1, 2]
        latest = await service.load_artifact(**ids, filename="a.txt")
        first = await service.load_artifact(**ids, filename="a.txt", version=0)
        assert (latest and latest.text, first and first.text) == ("three", "one")
        assert await service.load_artifact(**ids, filename="a.txt", version=3) is None
        assert await service.load_artifact(**ids, filename="a.txt", version=-1) is None
        assert await service.load_artifact(**ids, filename="missing") is None
        assert await service.list_versions(**ids, filename="missing") == []

    async def test_bytes_and_mime_type_round_trip(
        self, service: BaseArtifactService, ids: Where
    ) -> None:
        part = types.Part(inline_data=types.Blob(mime_type="image/png", data=bytes(range(256))))
        await service.save_artifact(**ids, filename="img.png", artifact=part)
        assert await service.load_artifact(**ids, filename="img.png") == part

    async def test_session_files_are_private_and_user_files_shared(
        self, service: BaseArtifactService, ids: Where
    ) -> None:
        await service.save_artifact(**ids, filename="notes", artifact=_text("s1"))
        await service.save_artifact(**ids, filename="user:profile", artifact=_text("shared"))
        other = Where(app_name=ids["app_name"], user_id="u1", session_id="s2")
        assert await service.load_artifact(**other, filename="notes") is None
        shared = await service.load_artifact(**other, filename="user:profile")
        assert shared is not None and shared.text == "shared"
        assert await service.list_artifact_keys(**other) == ["user:profile"]
        assert await service.list_artifact_keys(**ids) == ["notes", "user:profile"]
        stranger = Where(app_name=ids["app_name"], user_id="u2", session_id="s1")
        assert await service.list_artifact_keys(**stranger) == []

    async def test_delete_removes_every_version_and_only_that_file(
        self, service: BaseArtifactService, ids: Where
    ) -> None:
        await service.save_artifact(**ids, filename="a", artifact=_text("1"))
        await service.save_artifact(**ids, filename="a", artifact=_text("2"))
        await service.save_artifact(**ids, filename="b", artifact=_text("keep"))
        await service.delete_artifact(**ids, filename="a")
        await service.delete_artifact(**ids, filename="never")
        assert await service.list_artifact_keys(**ids) == ["b"]
        assert await service.load_artifact(**ids, filename="a") is None
        assert await service.save_artifact(**ids, filename="a", artifact=_text("new")) == 0

    async def test_bad_filenames_and_artifacts_are_refused(
        self, service: BaseArtifactService, ids: Where
    ) -> None:
        with pytest.raises(ValueError, match="must not be empty"):
            await service.save_artifact(**ids, filename="user:", artifact=_text("x"))
        with pytest.raises(TypeError, match=r"must be a types\.Part"):
            await service.save_artifact(**ids, filename="a", artifact=b"raw")  # type: ignore[arg-type]
        assert await service.list_artifact_keys(**ids) == []

    async def test_saved_part_is_a_copy(self, service: BaseArtifactService, ids: Where) -> None:
        part = _text("before")
        await service.save_artifact(**ids, filename="a", artifact=part)
        part.text = "after"
        loaded = await service.load_artifact(**ids, filename="a")
        assert loaded is not None
        loaded.text = "changed"
        again = await service.load_artifact(**ids, filename="a")
        assert again is not None and again.text == "before"


__all__ = ["ArtifactServiceConformance"]
