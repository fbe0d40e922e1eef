"""FileArtifactService: versioned artifacts as plain files under a root directory.

Layout (each name percent-encoded, so any filename is safe)::

    ROOT/<app>/<user>/sessions/<session>/<filename>/<version>/part.json
    ROOT/<app>/<user>/user/<filename>/<version>/part.json      # "user:" filenames
                                                   .../data     # inline bytes, raw

A version is written in a temporary directory and renamed into place, so readers
never see half a file, and two processes saving the same filename get distinct
versions. Disk work runs in a thread: the event loop never waits on it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import tempfile
from pathlib import Path
from urllib.parse import quote, unquote

from pyadk import types
from pyadk.artifacts.base_artifact_service import USER_NAMESPACE_PREFIX, BaseArtifactService
from pyadk.artifacts.in_memory_artifact_service import _as_part, _check_filename

_PART, _DATA = "part.json", "data"


def _encode(name: str) -> str:
    encoded = quote(name, safe="")
    return encoded.replace(".", "%2E") if set(encoded) <= {"."} else encoded


def _fsync_dir(path: Path) -> None:
    with contextlib.suppress(OSError):  # not every platform can open a directory
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _write(path: Path, data: bytes) -> None:
    with open(path, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())


class FileArtifactService(BaseArtifactService):
    """Stores artifacts under ``root`` (created when missing), one directory per version."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root)

    def __repr__(self) -> str:
        return f"FileArtifactService({str(self.root)!r})"

    def _dir(self, app_name: str, user_id: str, session_id: str, filename: str) -> Path:
        base = self.root / _encode(app_name) / _encode(user_id)
        if filename.startswith(USER_NAMESPACE_PREFIX):
            return base / "user" / _encode(filename)
        return base / "sessions" / _encode(session_id) / _encode(filename)

    @staticmethod
    def _versions(directory: Path) -> list[int]:
        if not directory.is_dir():
            return []
        return sorted(int(p.name) for p in directory.iterdir() if p.name.isdigit())

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
        directory = self._dir(app_name, user_id, session_id, filename)
        return await asyncio.to_thread(self._save, directory, part)

    def _save(self, directory: Path, part: types.Part) -> int:
        directory.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=".saving-", dir=directory))
        try:
            data = part.inline_data.data if part.inline_data is not None else None
            if part.inline_data is not None and data is not None:
                _write(staging / _DATA, data)
                part = part.model_copy(
                    update={"inline_data": part.inline_data.model_copy(update={"data": None})}
                )
            meta = part.model_dump(mode="json", by_alias=True, exclude_none=True)
            meta_text = json.dumps({"part": meta, "hasData": data is not None}, ensure_ascii=False)
            _write(staging / _PART, meta_text.encode("utf-8"))
            version = (self._versions(directory) or [-1])[-1] + 1
            while True:
                try:
                    os.rename(staging, directory / str(version))
                    break
                except OSError:  # another writer took this version first
                    if not (directory / str(version)).exists():
                        raise
                    version += 1
            _fsync_dir(directory)
            return version
        finally:
            shutil.rmtree(staging, ignore_errors=True)

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
        directory = self._dir(app_name, user_id, session_id, filename)
        return await asyncio.to_thread(self._load, directory, version)

    def _load(self, directory: Path, version: int | None) -> types.Part | None:
        if version is None:
            versions = self._versions(directory)
            if not versions:
                return None
            version = versions[-1]
        if version < 0:
            return None
        folder = directory / str(version)
        try:
            meta = json.loads((folder / _PART).read_text(encoding="utf-8"))
            data = (folder / _DATA).read_bytes() if meta["hasData"] else None
        except FileNotFoundError:
            return None
        part = types.Part.model_validate(meta["part"])
        if data is not None and part.inline_data is not None:
            part.inline_data.data = data
        return part

    async def list_artifact_keys(
        self, *, app_name: str, user_id: str, session_id: str
    ) -> list[str]:
        base = self.root / _encode(app_name) / _encode(user_id)
        folders = [base / "sessions" / _encode(session_id), base / "user"]
        return await asyncio.to_thread(self._keys, folders)

    def _keys(self, folders: list[Path]) -> list[str]:
        keys: set[str] = set()
        for folder in folders:
            if folder.is_dir():
                keys.update(unquote(p.name) for p in folder.iterdir() if self._versions(p))
        return sorted(keys)

    async def delete_artifact(
        self, *, app_name: str, user_id: str, session_id: str, filename: str
    ) -> None:
        _check_filename(filename)
        directory = self._dir(app_name, user_id, session_id, filename)
        await asyncio.to_thread(self._delete, directory)

    @staticmethod
    def _delete(directory: Path) -> None:
        if not directory.is_dir():
            return
        doomed = directory.with_name(f".deleting-{directory.name}-{os.getpid()}-{id(directory)}")
        os.rename(directory, doomed)  # gone for readers at once
        shutil.rmtree(doomed, ignore_errors=True)

    async def list_versions(
        self, *, app_name: str, user_id: str, session_id: str, filename: str
    ) -> list[int]:
        _check_filename(filename)
        directory = self._dir(app_name, user_id, session_id, filename)
        return await asyncio.to_thread(self._versions, directory)
