"""Agent Skills: folders with a SKILL.md (YAML frontmatter + instructions) and resources.

Give them to an agent with :class:`pyadk.tools.skill_toolset.SkillToolset`.
"""

from __future__ import annotations

from typing import Any

from pyadk.skills._gcs import (
    list_skills_in_gcs_dir,
    list_skills_in_gcs_dir_async,
    load_skill_from_gcs_dir,
    load_skill_from_gcs_dir_async,
)
from pyadk.skills._utils import _list_skills_in_dir as list_skills_in_dir
from pyadk.skills._utils import _list_skills_in_dir_async as list_skills_in_dir_async
from pyadk.skills._utils import _load_skill_from_dir as load_skill_from_dir
from pyadk.skills._utils import _load_skill_from_dir_async as load_skill_from_dir_async
from pyadk.skills._utils import _load_skills_from_dir as load_skills_from_dir
from pyadk.skills._utils import _load_skills_from_dir_async as load_skills_from_dir_async
from pyadk.skills.models import Frontmatter, Resources, Script, Skill
from pyadk.skills.skill_registry import SkillRegistry

__all__ = [
    "Frontmatter",
    "Resources",
    "Script",
    "Skill",
    "SkillRegistry",
    "list_skills_in_dir",
    "list_skills_in_dir_async",
    "list_skills_in_gcs_dir",
    "list_skills_in_gcs_dir_async",
    "load_skill_from_dir",
    "load_skill_from_dir_async",
    "load_skill_from_gcs_dir",
    "load_skill_from_gcs_dir_async",
    "load_skills_from_dir",
    "load_skills_from_dir_async",
]


def __getattr__(name: str) -> Any:
    if name == "DEFAULT_SKILL_SYSTEM_INSTRUCTION":
        import warnings

        from pyadk.tools import skill_toolset

        warnings.warn(
            "pyadk.skills.DEFAULT_SKILL_SYSTEM_INSTRUCTION is deprecated (as in google-adk): "
            "import it from pyadk.tools.skill_toolset.",
            DeprecationWarning,
            stacklevel=2,
        )
        return skill_toolset.DEFAULT_SKILL_SYSTEM_INSTRUCTION
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
