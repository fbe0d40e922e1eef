"""FileArtifactService: the artifact contract on disk, plus what files add."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import pytest

from pyadk import types
from pyadk.artifacts import FileArtifactService, InMemoryArtifactService

IDS = {"app_name": "app", "user_id": "u1", "session_id": "s1"}


def text(value: str) -> types.Part:
    return types.Part(text=value)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return tmp_path / "artifacts"


@pytest.fixture(params=["file", "memory"])
def service(request, root):
    return FileArtifactService(root) if request.param == "file" else InMemoryArtifactService()


# -- the contract, for both services ------------------------------------------------------


async def test_versions_count_from_zero_and_load_any_of_them(service):
    for value in ("one", "two", "three"):
        await service.save_artifact(**IDS, filename="a.txt", artifact=text(value))
    assert await service.list_versions(**IDS, filename="a.txt") == [0, 1, 2]
    assert (await service.load_artifact(**IDS, filename="a.txt")).text == "three"
    assert (await service.load_artifact(**IDS, filename="a.txt", version=0)).text == "one"
    assert await service.load_artifact(**IDS, filename="a.txt", version=3) is None
    assert await service.load_artifact(**IDS, filename="a.txt", version=-1) is None
    assert await service.load_artifact(**IDS, filename="missing") is None
    assert await service.list_versions(**IDS, filename="missing") == []


async def test_bytes_and_mime_type_round_trip(service):
    part = types.Part(inline_data=types.Blob(mime_type="image/png", data=bytes(range(256))))
    await service.save_artifact(**IDS, filename="img.png", artifact=part)
    assert await service.load_artifact(**IDS, filename="img.png") == part


async def test_session_files_are_private_and_user_files_shared(service):
    await service.save_artifact(**IDS, filename="notes", artifact=text("s1"))
    await service.save_artifact(**IDS, filename="user:profile", artifact=text("shared"))
    other = {**IDS, "session_id": "s2"}
    assert await service.load_artifact(**other, filename="notes") is None
    assert (await service.load_artifact(**other, filename="user:profile")).text == "shared"
    assert await service.list_artifact_keys(**other) == ["user:profile"]
    assert await service.list_artifact_keys(**IDS) == ["notes", "user:profile"]
    stranger = {**IDS, "user_id": "u2"}
    assert await service.list_artifact_keys(**stranger) == []


async def test_delete_removes_every_version_and_only_that_file(service):
    await service.save_artifact(**IDS, filename="a", artifact=text("1"))
    await service.save_artifact(**IDS, filename="a", artifact=text("2"))
    await service.save_artifact(**IDS, filename="b", artifact=text("keep"))
    await service.delete_artifact(**IDS, filename="a")
    await service.delete_artifact(**IDS, filename="never")
    assert await service.list_artifact_keys(**IDS) == ["b"]
    assert await service.load_artifact(**IDS, filename="a") is None
    assert await service.save_artifact(**IDS, filename="a", artifact=text("new")) == 0


async def test_bad_filenames_and_artifacts_are_refused(service):
    with pytest.raises(ValueError, match="must not be empty"):
        await service.save_artifact(**IDS, filename="user:", artifact=text("x"))
    with pytest.raises(TypeError, match=r"must be a types\.Part"):
        await service.save_artifact(**IDS, filename="a", artifact=b"raw")  # type: ignore[arg-type]


async def test_saved_part_is_a_copy(service):
    part = text("before")
    await service.save_artifact(**IDS, filename="a", artifact=part)
    part.text = "after"
    loaded = await service.load_artifact(**IDS, filename="a")
    loaded.text = "changed"
    assert (await service.load_artifact(**IDS, filename="a")).text == "before"


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
