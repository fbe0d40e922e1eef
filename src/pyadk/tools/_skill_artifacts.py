"""Saving the files a skill script wrote as artifacts (``save_output_artifacts=True``)."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from pyadk import types
from pyadk.code_executors.code_execution_utils import File, file_bytes

if TYPE_CHECKING:
    from pyadk.tools.tool_context import ToolContext

logger = logging.getLogger(__name__)

MAX_ARTIFACT_BYTES = 5 * 1024 * 1024
"""Largest file saved."""
MAX_TOTAL_BYTES = 16 * 1024 * 1024
"""Bytes saved per script run."""
MAX_ARTIFACTS = 50
"""Files saved per script run."""


async def save_generated_files(
    tool_context: ToolContext,
    output_files: Sequence[File],
    skill_files: Mapping[str, str | bytes],
) -> tuple[list[str], list[str]]:
    """Saves the files that are not the skill's own unchanged files; (saved, skipped)."""
    saved: list[str] = []
    skipped: list[str] = []
    total = 0
    if output_files and tool_context.invocation_context.artifact_service is None:
        logger.warning("A skill script wrote files, but the runner has no artifact service.")
        return saved, skipped
    for file in output_files:
        name = file.name.replace("\\", "/")
        if "__pycache__" in name.split("/") or name.endswith(".pyc"):
            continue
        data = file_bytes(file.content)
        original = skill_files.get(name)
        if original is not None and _as_bytes(original) == data:
            continue
        if (
            len(data) > MAX_ARTIFACT_BYTES
            or total + len(data) > MAX_TOTAL_BYTES
            or len(saved) >= MAX_ARTIFACTS
        ):
            logger.warning("Not saving %r written by a skill script: over the limits.", name)
            if len(skipped) < MAX_ARTIFACTS:
                skipped.append(name)
            continue
        try:
            await tool_context.save_artifact(
                name, types.Part.from_bytes(data=data, mime_type=file.mime_type)
            )
        except Exception:
            logger.exception("Could not save %r written by a skill script.", name)
            continue
        saved.append(name)
        total += len(data)
    return saved, skipped


def _as_bytes(content: str | bytes) -> bytes:
    return content.encode("utf-8") if isinstance(content, str) else content
