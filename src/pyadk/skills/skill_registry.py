"""SkillRegistry: a remote or computed source of skills, searched by the model."""

from __future__ import annotations

import abc

from pyadk.skills.models import Frontmatter, Skill


class SkillRegistry(abc.ABC):
    """Where a :class:`~pyadk.tools.skill_toolset.SkillToolset` finds skills it was not
    given: the model finds them with ``search_skills`` and loads them by name."""

    @abc.abstractmethod
    async def get_skill(self, *, name: str) -> Skill:
        """The skill called ``name``; raises when there is none."""

    @abc.abstractmethod
    async def search_skills(self, *, query: str) -> list[Frontmatter]:
        """The frontmatter of the skills matching ``query``."""

    def search_tool_description(self) -> str | None:
        """A description of ``search_skills`` for the model (None: the default one)."""
        return None
