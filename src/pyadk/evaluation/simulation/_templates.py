"""``{{ name }}`` placeholders, the part of Jinja syntax google-adk's simulator
instructions use, rendered without Jinja."""

from __future__ import annotations

import re
from collections.abc import Mapping

_PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)\s*\}\}")


def placeholders(template: str) -> set[str]:
    """The top-level names the template's placeholders use."""
    return {match.group(1).split(".")[0] for match in _PLACEHOLDER.finditer(template)}


def check_template(template: str, required: list[str], what: str) -> None:
    """ValueError when ``template`` lacks one of ``required`` or uses Jinja blocks."""
    if "{%" in template:
        raise ValueError(
            f"{what}: pyadk renders {{{{ name }}}} placeholders only, not {{% ... %}} blocks "
            "(use {{ persona }} for the persona's description and behaviours)"
        )
    missing = [name for name in required if name not in placeholders(template)]
    if missing:
        wanted = ", ".join(f"{{{{ {name} }}}}" for name in required)
        raise ValueError(f"{what} must contain each of the placeholders {wanted}")


def render(template: str, values: Mapping[str, object]) -> str:
    """``template`` with each placeholder replaced (``a.b`` reads attribute ``b`` of
    ``a``); KeyError naming a placeholder that has no value."""

    def value(match: re.Match[str]) -> str:
        head, *attributes = match.group(1).split(".")
        if head not in values:
            raise KeyError(f"no value for the placeholder {{{{ {match.group(1)} }}}}")
        found = values[head]
        for attribute in attributes:
            found = getattr(found, attribute)
        if hasattr(found, "as_text"):
            return str(found.as_text())
        return str(found)

    return _PLACEHOLDER.sub(value, template)
