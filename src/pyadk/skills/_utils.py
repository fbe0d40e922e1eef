"""Reading skill folders: SKILL.md with its YAML frontmatter, and the resource files."""

from __future__ import annotations

import asyncio
import logging
import pathlib
from collections.abc import Callable
from pathlib import PurePosixPath, PureWindowsPath
from typing import Any

from pydantic import ValidationError

from pyadk.skills.models import Frontmatter, Resources, Script, Skill

logger = logging.getLogger(__name__)

_SKILL_FILES = ("SKILL.md", "skill.md")

ErrorHandler = Callable[[str, Exception], None]
"""Called with a skill folder's name and why it could not be listed."""


def _validate_relative_resource_path(path: str) -> str:
    """``path`` as a normalised POSIX path inside its folder; ValueError when it is
    absolute, has a drive or climbs out with ``..``."""
    posix = PurePosixPath(path.replace("\\", "/"))
    normalized = posix.as_posix()
    windows = PureWindowsPath(path)
    if (
        not normalized
        or normalized == "."
        or posix.is_absolute()
        or ".." in posix.parts
        or windows.is_absolute()
        or windows.drive
    ):
        raise ValueError(f"Unsafe path in skill resource: {path!r}")
    return normalized


def _yaml_load(text: str) -> Any:
    try:
        import yaml
    except ImportError as exc:  # pragma: no cover - pyyaml is in the skills extra
        raise ImportError(
            "Reading SKILL.md frontmatter needs PyYAML: pip install 'pyadk[skills]'"
        ) from exc
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ValueError(f"Invalid YAML in SKILL.md frontmatter: {exc}") from exc


def _parse_skill_md_content(content: str) -> tuple[dict[str, Any], str]:
    """(frontmatter mapping, body) of a SKILL.md text."""
    if not content.startswith("---"):
        raise ValueError("SKILL.md must start with YAML frontmatter between '---' lines")
    parts = content.split("---", 2)
    if len(parts) < 3:
        raise ValueError("SKILL.md frontmatter is not closed with a '---' line")
    parsed = _yaml_load(parts[1])
    if not isinstance(parsed, dict):
        raise ValueError("SKILL.md frontmatter must be a YAML mapping (name: ..., ...)")
    return parsed, parts[2].strip()


def _find_skill_md(skill_dir: pathlib.Path) -> pathlib.Path:
    if not skill_dir.is_dir():
        raise FileNotFoundError(f"Skill directory '{skill_dir}' not found.")
    for name in _SKILL_FILES:
        if (skill_dir / name).is_file():
            return skill_dir / name
    raise FileNotFoundError(f"SKILL.md not found in '{skill_dir}'.")


def _read_frontmatter(skill_dir: pathlib.Path) -> tuple[Frontmatter, str]:
    skill_md = _find_skill_md(skill_dir)
    parsed, body = _parse_skill_md_content(skill_md.read_text(encoding="utf-8"))
    frontmatter = Frontmatter.model_validate(parsed)
    if frontmatter.name != skill_dir.name:
        raise ValueError(
            f"Skill name '{frontmatter.name}' does not match its directory name '{skill_dir.name}'."
        )
    return frontmatter, body


def _load_dir(directory: pathlib.Path) -> dict[str, str | bytes]:
    """The files under ``directory`` by POSIX relative path: text as str, else bytes."""
    files: dict[str, str | bytes] = {}
    if not directory.is_dir():
        return files
    for path in sorted(directory.rglob("*")):
        if "__pycache__" in path.parts or not path.is_file():
            continue
        key = path.relative_to(directory).as_posix()
        data = path.read_bytes()
        try:
            files[key] = data.decode("utf-8")
        except UnicodeDecodeError:
            files[key] = data
    return files


def _build_scripts(raw: dict[str, str | bytes]) -> dict[str, Script]:
    scripts: dict[str, Script] = {}
    for name, src in raw.items():
        if isinstance(src, bytes):
            logger.warning("Skipping skill script %r: it is not UTF-8 text.", name)
            continue
        scripts[name] = Script(src=src)
    return scripts


def _load_skill_from_dir(skill_dir: str | pathlib.Path) -> Skill:
    """Loads the skill of one folder (SKILL.md, references/, assets/, scripts/).

    Raises FileNotFoundError (no folder, no SKILL.md) or ValueError (bad frontmatter,
    bad YAML, a name that differs from the folder's).
    """
    skill_dir = pathlib.Path(skill_dir).resolve()
    frontmatter, body = _read_frontmatter(skill_dir)
    skill = Skill(
        frontmatter=frontmatter,
        instructions=body,
        resources=Resources(
            references=_load_dir(skill_dir / "references"),
            assets=_load_dir(skill_dir / "assets"),
            scripts=_build_scripts(_load_dir(skill_dir / "scripts")),
        ),
    )
    skill._uri = skill_dir.as_uri()
    return skill


def _load_skills_from_dir(skills_dir: str | pathlib.Path) -> list[Skill]:
    """Loads every sub-folder holding a SKILL.md, by folder name; an invalid one raises."""
    skills_dir = pathlib.Path(skills_dir).resolve()
    if not skills_dir.exists():
        raise FileNotFoundError(f"Skills directory '{skills_dir}' does not exist.")
    if not skills_dir.is_dir():
        raise ValueError(f"'{skills_dir}' is not a directory.")
    return [
        _load_skill_from_dir(sub)
        for sub in sorted(skills_dir.iterdir())
        if sub.is_dir() and any((sub / name).is_file() for name in _SKILL_FILES)
    ]


def _list_skills_in_dir(
    skills_base_path: str | pathlib.Path, on_error: ErrorHandler | None = None
) -> dict[str, Frontmatter]:
    """The frontmatter of each skill folder under ``skills_base_path``, by folder name.

    An invalid folder is logged and skipped, or handed to ``on_error`` (which may raise).
    """
    base = pathlib.Path(skills_base_path).resolve()
    skills: dict[str, Frontmatter] = {}
    if not base.is_dir():
        logger.warning("Skills base path '%s' is not a directory.", base)
        return skills
    for sub in sorted(base.iterdir()):
        if not sub.is_dir():
            continue
        try:
            skills[sub.name] = _read_frontmatter(sub)[0]
        except (FileNotFoundError, ValueError, ValidationError) as exc:
            if on_error is not None:
                on_error(sub.name, exc)
                continue
            logger.warning("Skipping invalid skill '%s' in '%s': %s", sub.name, base, exc)
    return skills


async def _load_skill_from_dir_async(skill_dir: str | pathlib.Path) -> Skill:
    """:func:`load_skill_from_dir` in a worker thread."""
    return await asyncio.to_thread(_load_skill_from_dir, skill_dir)


async def _load_skills_from_dir_async(skills_dir: str | pathlib.Path) -> list[Skill]:
    """:func:`load_skills_from_dir` in a worker thread."""
    return await asyncio.to_thread(_load_skills_from_dir, skills_dir)


async def _list_skills_in_dir_async(
    skills_base_path: str | pathlib.Path, on_error: ErrorHandler | None = None
) -> dict[str, Frontmatter]:
    """:func:`list_skills_in_dir` in a worker thread."""
    return await asyncio.to_thread(_list_skills_in_dir, skills_base_path, on_error)
