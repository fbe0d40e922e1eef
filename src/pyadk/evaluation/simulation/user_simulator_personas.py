"""Personas a simulated user can play: behaviours, each with instructions for the
simulator and the violations a judge looks for."""

from __future__ import annotations

import logging
from collections.abc import Sequence

from pydantic import BaseModel, Field

logger = logging.getLogger(__name__)


class UserBehavior(BaseModel):
    """One way a persona behaves."""

    name: str
    description: str
    behavior_instructions: list[str] = Field(default_factory=list)
    """What the simulated user is told to do."""
    violation_rubrics: list[str] = Field(default_factory=list)
    """What a judge counts as breaking the behaviour."""

    def get_behavior_instructions_str(self) -> str:
        """The instructions as a bulleted list."""
        return "\n".join(f"  * {line}" for line in self.behavior_instructions)

    def get_violation_rubrics_str(self) -> str:
        """The violations as a bulleted list."""
        return "\n".join(f"  * {line}" for line in self.violation_rubrics)


class UserPersona(BaseModel):
    """Who the simulated user is: an id, a description and behaviours."""

    id: str
    description: str
    behaviors: Sequence[UserBehavior] = Field(default_factory=list)

    def as_text(self) -> str:
        """The persona as the simulator's and the judge's prompts show it."""
        lines = [self.description.strip()]
        for behavior in self.behaviors:
            lines += ["", f"## {behavior.name}", behavior.description.strip()]
            if behavior.behavior_instructions:
                lines += ["Instructions:", behavior.get_behavior_instructions_str()]
        return "\n".join(lines)


class UserPersonaRegistry:
    """Personas by id."""

    def __init__(self) -> None:
        self._registry: dict[str, UserPersona] = {}

    def get_persona(self, persona_id: str) -> UserPersona:
        """The persona of ``persona_id``; KeyError naming the known ids."""
        if persona_id not in self._registry:
            known = ", ".join(sorted(self._registry)) or "none"
            raise KeyError(f"No user persona {persona_id!r} (known: {known}).")
        return self._registry[persona_id]

    def register_persona(self, persona_id: str, user_persona: UserPersona) -> None:
        """Adds (or replaces) the persona of ``persona_id``."""
        if persona_id in self._registry:
            logger.info("Replacing user persona %r", persona_id)
        self._registry[persona_id] = user_persona

    def get_registered_personas(self) -> list[UserPersona]:
        """Every registered persona, in registration order."""
        return list(self._registry.values())
