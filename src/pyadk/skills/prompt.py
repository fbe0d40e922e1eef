"""How a catalog of skills is shown to the model."""

from __future__ import annotations

import html
from collections.abc import Sequence

from pyadk.skills.models import Frontmatter, Skill


def format_skills_as_xml(skills: Sequence[Frontmatter | Skill]) -> str:
    """An ``<available_skills>`` block with each skill's escaped name and description."""
    lines = ["<available_skills>"]
    for skill in skills:
        lines += [
            "<skill>",
            "<name>",
            html.escape(skill.name),
            "</name>",
            "<description>",
            html.escape(skill.description),
            "</description>",
            "</skill>",
        ]
    lines.append("</available_skills>")
    return "\n".join(lines)
