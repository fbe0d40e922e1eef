"""Skill data: the frontmatter (L1), the instructions (L2) and the resources (L3)."""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, field_validator

_NAME_PATTERN = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
_MAX_NAME = 64
_MAX_DESCRIPTION = 1024
_MAX_COMPATIBILITY = 500


class Frontmatter(BaseModel):
    """The YAML header of a SKILL.md: what the model sees before it loads the skill.

    ``name`` (kebab-case, at most 64 characters) and ``description`` (at most 1024) are
    required. ``metadata`` may hold ``adk_additional_tools`` (tool names offered once the
    skill is loaded) and ``adk_inject_state`` (fill ``{key}`` placeholders of the body
    from session state on load). Other keys are kept as extra fields.
    """

    model_config = ConfigDict(extra="allow", populate_by_name=True)

    name: str
    description: str
    license: str | None = None
    compatibility: str | None = None
    allowed_tools: str | None = Field(
        default=None, alias="allowed-tools", serialization_alias="allowed-tools"
    )
    """Space-separated tools the skill may use (accepted as ``allowed-tools`` too)."""
    metadata: dict[str, Any] = Field(default_factory=dict)

    @field_validator("name")
    @classmethod
    def _check_name(cls, value: str) -> str:
        value = unicodedata.normalize("NFKC", value)
        if len(value) > _MAX_NAME:
            raise ValueError(f"name must be at most {_MAX_NAME} characters, got {len(value)}")
        if not _NAME_PATTERN.match(value):
            raise ValueError(
                f"name {value!r} must be kebab-case: lowercase letters and digits joined "
                "by single hyphens (no leading or trailing hyphen)"
            )
        return value

    @field_validator("description")
    @classmethod
    def _check_description(cls, value: str) -> str:
        if not value:
            raise ValueError("description must not be empty")
        if len(value) > _MAX_DESCRIPTION:
            raise ValueError(
                f"description must be at most {_MAX_DESCRIPTION} characters, got {len(value)}"
            )
        return value

    @field_validator("compatibility")
    @classmethod
    def _check_compatibility(cls, value: str | None) -> str | None:
        if value is not None and len(value) > _MAX_COMPATIBILITY:
            raise ValueError(f"compatibility must be at most {_MAX_COMPATIBILITY} characters")
        return value

    @field_validator("metadata")
    @classmethod
    def _check_metadata(cls, value: dict[str, Any]) -> dict[str, Any]:
        tools = value.get("adk_additional_tools")
        if tools is not None and not isinstance(tools, list):
            raise ValueError("metadata.adk_additional_tools must be a list of tool names")
        inject = value.get("adk_inject_state")
        if inject is not None and not isinstance(inject, bool):
            raise ValueError("metadata.adk_inject_state must be true or false")
        return value


class Script(BaseModel):
    """The source of a script of a skill's ``scripts/`` folder."""

    src: str

    def __str__(self) -> str:
        return self.src


class Resources(BaseModel):
    """A skill's files by path relative to their folder: ``references/`` and ``assets/``
    (text as ``str``, binary as ``bytes``) and ``scripts/``."""

    references: dict[str, str | bytes] = Field(default_factory=dict)
    assets: dict[str, str | bytes] = Field(default_factory=dict)
    scripts: dict[str, Script] = Field(default_factory=dict)

    def get_reference(self, reference_id: str) -> str | bytes | None:
        """A reference's content (None: no such file)."""
        return self.references.get(reference_id)

    def get_asset(self, asset_id: str) -> str | bytes | None:
        """An asset's content (None: no such file)."""
        return self.assets.get(asset_id)

    def get_script(self, script_id: str) -> Script | None:
        """A script (None: no such file)."""
        return self.scripts.get(script_id)

    def list_references(self) -> list[str]:
        """Paths of the references."""
        return list(self.references)

    def list_assets(self) -> list[str]:
        """Paths of the assets."""
        return list(self.assets)

    def list_scripts(self) -> list[str]:
        """Paths of the scripts."""
        return list(self.scripts)


class Skill(BaseModel):
    """A whole skill: ``frontmatter``, ``instructions`` (the SKILL.md body) and
    ``resources``."""

    frontmatter: Frontmatter
    instructions: str
    resources: Resources = Field(default_factory=Resources)

    _uri: str | None = PrivateAttr(default=None)
    """Where the skill was loaded from (a ``file://`` URI), when known."""

    @property
    def name(self) -> str:
        """The skill's name."""
        return self.frontmatter.name

    @property
    def description(self) -> str:
        """The skill's description."""
        return self.frontmatter.description
