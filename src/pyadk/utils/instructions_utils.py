"""Instruction templates: ``{key}``, ``{key?}``, ``{app:key}``, ``{artifact.name}``."""

from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING

from pyadk.events.outcome import OUTCOME_STATE_PREFIX
from pyadk.sessions.state import State

if TYPE_CHECKING:
    from pyadk.agents.readonly_context import ReadonlyContext

_PLACEHOLDER = re.compile(r"\{\{[^{}]*\}\}|\{[^{}]*\}")
_PREFIXES = (State.APP_PREFIX, State.USER_PREFIX, State.TEMP_PREFIX)


class TemplateVariableError(KeyError):
    """An instruction names a state key (or artifact) that does not exist."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


def _is_state_name(name: str) -> bool:
    for prefix in _PREFIXES:
        if name.startswith(prefix):
            return name[len(prefix) :].isidentifier()
    return name.isidentifier()


async def inject_session_state(
    template: str, readonly_context: ReadonlyContext, *, agent_name: str | None = None
) -> str:
    """Fills ``{key}`` placeholders of ``template`` from session state and artifacts.

    ``{outcome:<agent>}`` renders how that agent last ended (``failure: <reason>``).
    ``{key?}`` is optional (missing -> empty). ``{{text}}`` is an escape and renders as
    ``{text}``. Braces around anything that is not a valid key (spaces, JSON, ...) are
    left as written. A missing required key raises :class:`TemplateVariableError`
    naming the key and the agent.
    """
    if "{" not in template:
        return template
    ctx = readonly_context._invocation_context
    owner = agent_name or ctx.agent.name
    parts: list[str] = []
    for text, kind, name, optional in _pieces(template):
        if kind is _TEXT:
            parts.append(text)
        elif kind is _ARTIFACT:
            parts.append(await _artifact_text(readonly_context, name, optional, owner))
        elif kind is _OUTCOME:
            parts.append(_outcome_text(readonly_context, name, optional, owner))
        else:
            state = ctx.session.state
            if name in state:
                parts.append(str(state[name]))
            elif optional:
                parts.append("")
            else:
                raise TemplateVariableError(
                    f"Context variable not found: `{name}` (instruction of agent {owner!r}). "
                    f"Set state[{name!r}] before this agent runs, write `{{{name}?}}` to make "
                    f"it optional, or `{{{{{name}}}}}` for literal braces."
                )
    return "".join(parts)


_TEXT, _ARTIFACT, _OUTCOME, _STATE = "text", "artifact", "outcome", "state"
_Piece = tuple[str, str, str, bool]
"""(literal text, kind, name, optional): one piece of a parsed template."""


@functools.lru_cache(maxsize=256)
def _pieces(template: str) -> tuple[_Piece, ...]:
    """``template`` split into literal text and placeholders (parsed once per template)."""
    pieces: list[_Piece] = []
    last = 0
    for match in _PLACEHOLDER.finditer(template):
        pieces.append((template[last : match.start()], _TEXT, "", False))
        last = match.end()
        raw = match.group()
        if raw.startswith("{{"):
            pieces.append((raw[1:-1], _TEXT, "", False))
            continue
        name = raw[1:-1].strip()
        optional = name.endswith("?")
        if optional:
            name = name[:-1]
        if name.startswith("artifact."):
            pieces.append(("", _ARTIFACT, name, optional))
        elif name.startswith(OUTCOME_STATE_PREFIX) and name[len(OUTCOME_STATE_PREFIX) :]:
            pieces.append(("", _OUTCOME, name, optional))
        elif _is_state_name(name):
            pieces.append(("", _STATE, name, optional))
        else:
            pieces.append((raw, _TEXT, "", False))
    pieces.append((template[last:], _TEXT, "", False))
    return tuple(pieces)


async def _artifact_text(
    readonly_context: ReadonlyContext, name: str, optional: bool, owner: str
) -> str:
    ctx = readonly_context._invocation_context
    filename = name[len("artifact.") :]
    if ctx.artifact_service is None:
        raise ValueError(
            f"Instruction of agent {owner!r} uses {{{name}}} but no artifact service is "
            "configured: pass artifact_service= to the Runner."
        )
    part = await ctx.artifact_service.load_artifact(
        app_name=ctx.app_name, user_id=ctx.user_id, session_id=ctx.session.id, filename=filename
    )
    if part is None:
        if optional:
            return ""
        raise TemplateVariableError(
            f"Artifact {filename!r} not found (instruction of agent {owner!r})."
        )
    if part.text is not None:
        return part.text
    if part.inline_data is not None and part.inline_data.data is not None:
        mime = part.inline_data.mime_type or ""
        if mime.startswith("text/") or mime in ("application/json", ""):
            return part.inline_data.data.decode("utf-8", errors="replace")
    return str(part)


def _outcome_text(readonly_context: ReadonlyContext, name: str, optional: bool, owner: str) -> str:
    agent_name = name[len(OUTCOME_STATE_PREFIX) :]
    outcome = readonly_context._invocation_context.outcome_of(agent_name)
    if outcome is not None:
        return outcome.describe()
    if optional:
        return ""
    raise TemplateVariableError(
        f"No outcome recorded for agent {agent_name!r} (instruction of agent {owner!r}): "
        f"it has not run yet. Write `{{{name}?}}` to make it optional."
    )
