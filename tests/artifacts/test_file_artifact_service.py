"""FileArtifactService: the artifact contract on disk, plus what files add."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import pytest

from pyadk import types
from pyadk.artifacts import FileArtifactService, InMemoryArtifactService
from pyadk.testing.artifact_conformance import ArtifactServiceConformance

IDS = {"app_name": "app", "user_id": "u1", "session_id": "s1"}


def text(value: str) -> types.Part:
    return types.Part(text=value)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return tmp_path / "artifacts"


# -- the contract, for both services (pyadk.testing.artifact_conformance) ---------------


class TestFileArtifactContract(ArtifactServiceConformance):
    @pytest.fixture(autouse=True)
    def _root(self, root: Path) -> None:
        self.root = root

    async def make_service(self) -> FileArtifactService:
        return FileArtifactService(self.root)


class TestInMemoryArtifactContract(ArtifactServiceConformance):
    async def make_service(self) -> InMemoryArtifactService:
        return InMemoryArtifactService()


# -- files on disk --------------------------------------------------------------------------


async def test_artifacts_outlive_the_service_object(root):
    await FileArtifactService(root).save_artifact(**IDS, filename="a", artifact=text("kept"))
    reopened = FileArtifactService(root)
    assert (await reopened.load_artifact(**IDS, filename="a")).text == "kept"
    assert await reopened.list_artifact_keys(**IDS) == ["a"]


async def test_bytes_are_stored_raw_and_readable_by_other_tools(root):
    service = FileArtifactService(root)
    part = types.Part(inline_data=types.Blob(mime_type="text/csv", data=b"a,b\n1,2\n"))
    await service.save_artifact(**IDS, filename="t.csv", artifact=part)
    folder = root / "app" / "u1" / "sessions" / "s1" / "t.csv" / "0"
    assert (folder / "data").read_bytes() == b"a,b\n1,2\n"
    meta = json.loads((folder / "part.json").read_text())
    assert meta["part"]["inlineData"] == {"mimeType": "text/csv"}


@pytest.mark.parametrize("name", ["../../escape", "a/b/c.txt", "..", ".", "ü n i 🎉", "%2F"])
async def test_any_filename_stays_inside_root(root, name):
    service = FileArtifactService(root)
    ids = {"app_name": "../app", "user_id": "..", "session_id": "/etc"}
    await service.save_artifact(**ids, filename=name, artifact=text(name))
    assert (await service.load_artifact(**ids, filename=name)).text == name
    assert await service.list_artifact_keys(**ids) == [name]
    written = [p for p in root.parent.rglob("*") if p.is_file()]
    assert written and all(root in p.parents for p in written)


async def test_concurrent_saves_get_distinct_versions(root):
    services = [FileArtifactService(root) for _ in range(4)]  # e.g. four processes
    versions = await asyncio.gather(
        *(
            services[i % 4].save_artifact(**IDS, filename="log", artifact=text(str(i)))
            for i in range(24)
        )
    )
    assert sorted(versions) == list(range(24))
    loaded = {
        (await services[0].load_artifact(**IDS, filename="log", version=v)).text for v in range(24)
    }
    assert loaded == {str(i) for i in range(24)}
    folder = root / "app" / "u1" / "sessions" / "s1" / "log"
    assert sorted(os.listdir(folder), key=int) == [str(v) for v in range(24)]  # no leftovers


async def test_half_written_version_is_invisible(root):
    service = FileArtifactService(root)
    await service.save_artifact(**IDS, filename="a", artifact=text("done"))
    folder = root / "app" / "u1" / "sessions" / "s1" / "a"
    (folder / ".saving-crashed").mkdir()  # what a killed writer leaves behind
    assert await service.list_versions(**IDS, filename="a") == [0]
    assert (await service.load_artifact(**IDS, filename="a")).text == "done"
    assert await service.save_artifact(**IDS, filename="a", artifact=text("next")) == 1
