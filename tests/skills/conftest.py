"""Helpers: real skill folders written under tmp_path."""

from __future__ import annotations

from pathlib import Path

import pytest


def write_skill(
    root: Path,
    name: str,
    *,
    description: str = "Does a thing.",
    body: str = "Follow these steps.",
    header: str | None = None,
    files: dict[str, str | bytes] | None = None,
) -> Path:
    """A skill folder ``root/name`` with a SKILL.md and ``files`` (relative paths)."""
    folder = root / name
    folder.mkdir(parents=True, exist_ok=True)
    if header is None:
        header = f"name: {name}\ndescription: {description}\n"
    (folder / "SKILL.md").write_text(f"---\n{header}---\n{body}\n", encoding="utf-8")
    for relative, content in (files or {}).items():
        path = folder / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return folder


@pytest.fixture
def skills_root(tmp_path: Path) -> Path:
    root = tmp_path / "skills"
    root.mkdir()
    return root
