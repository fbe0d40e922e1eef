"""SaveFilesAsArtifactsPlugin: files in a user message become session artifacts.

The saving code is shared with ``RunConfig.save_input_blobs_as_artifacts`` (see
:func:`save_input_blobs`), which keeps google-adk's older naming and note.
"""

from __future__ import annotations

import copy
import logging
import urllib.parse
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from pyadk import types
from pyadk.plugins.base_plugin import BasePlugin

if TYPE_CHECKING:
    from pyadk.agents.base_agent import BaseAgent
    from pyadk.agents.callback_context import CallbackContext
    from pyadk.agents.invocation_context import InvocationContext

logger = logging.getLogger(__name__)

_MAX_INLINE_BYTES = 20 * 1024 * 1024
"""Largest file accepted (what Gemini accepts inline)."""
_MODEL_ACCESSIBLE_SCHEMES = frozenset({"gs", "https", "http"})

_Replacement = Callable[[int, types.Part, str, int], Awaitable[list[types.Part]]]
"""(part index, original part, artifact name, version) -> the parts put in its place."""


def generated_filename(invocation_id: str, index: int) -> str:
    """The artifact name of a file without a ``display_name``: by invocation and part."""
    return f"artifact_{invocation_id}_{index}"


async def save_inline_files(
    ctx: InvocationContext,
    message: types.Content,
    *,
    who: str,
    filename: Callable[[int, types.Blob], str],
    replacement: _Replacement,
    max_bytes: int | None = None,
    keep_on_error: bool = False,
) -> tuple[types.Content, dict[str, int]] | None:
    """Saves each inline-data part of ``message`` as an artifact of the session.

    Returns the message with each saved part replaced by ``replacement(...)`` and the
    saved ``{artifact name: version}``, or None when it holds no inline data. A file
    over ``max_bytes`` is replaced by an upload-error note. A failing save raises, or
    with ``keep_on_error`` keeps the part as it was (logged). ``who`` names the feature
    in the error raised when the runner has no artifact service.
    """
    parts = message.parts or []
    if not any(part.inline_data is not None for part in parts):
        return None
    service = ctx.artifact_service
    if service is None:
        raise ValueError(
            f"{who} needs an artifact service to save the files of a user message: pass "
            "artifact_service= to the Runner (InMemoryRunner has one)."
        )
    new_parts: list[types.Part] = []
    saved: dict[str, int] = {}
    for index, part in enumerate(parts):
        blob = part.inline_data
        if blob is None:
            new_parts.append(part)
            continue
        name = filename(index, blob)
        size = len(blob.data or b"")
        if max_bytes is not None and size > max_bytes:
            message_text = (
                f"File {name} ({size / 2**20:.2f} MB) exceeds the maximum supported size "
                f"of {max_bytes / 2**20:.0f}MB. Please upload a smaller file."
            )
            logger.warning(message_text)
            new_parts.append(types.Part(text=f"[Upload Error: {message_text}]"))
            continue
        try:
            version = await service.save_artifact(
                app_name=ctx.app_name,
                user_id=ctx.user_id,
                session_id=ctx.session.id,
                filename=name,
                artifact=copy.copy(part),  # later edits of the message leave it alone
            )
        except Exception:
            if not keep_on_error:
                raise
            logger.exception("%s could not save file %r; the message keeps it", who, name)
            new_parts.append(part)
            continue
        saved[name] = version
        new_parts.extend(await replacement(index, part, name, version))
    return types.Content(role=message.role or "user", parts=new_parts), saved


async def save_input_blobs(ctx: InvocationContext, message: types.Content) -> types.Content:
    """``RunConfig.save_input_blobs_as_artifacts``: each file saved as
    ``artifact_<invocation>_<index>`` and replaced by a note naming it."""

    async def note(index: int, part: types.Part, name: str, version: int) -> list[types.Part]:
        return [types.Part(text=f"Uploaded file: {name}. It is saved into artifacts")]

    saved = await save_inline_files(
        ctx,
        message,
        who="RunConfig.save_input_blobs_as_artifacts",
        filename=lambda index, blob: generated_filename(ctx.invocation_id, index),
        replacement=note,
    )
    return message if saved is None else saved[0]


class SaveFilesAsArtifactsPlugin(BasePlugin):
    """Saves the files (inline data) of each user message as session artifacts and
    puts ``[Uploaded Artifact: "<name>"]`` in their place, so the model knows where to
    find them (give the agent ``load_artifacts``, or load them in your tools).

    The artifact's name is the file's ``display_name`` (a ``user:`` prefix makes it
    shared by the user's sessions), else ``artifact_<invocation>_<index>``; a name
    saved again gets a new version. Files over 20 MB are not saved and are replaced by
    an upload-error note. The saved versions are recorded in the ``artifact_delta`` of
    the first agent's first event. With ``attach_file_reference`` (default) a
    ``file_data`` part pointing to the artifact follows the note when the artifact
    service gives the version a URI the model can fetch (``gs://``, ``http(s)://``;
    pyadk's own services have none). A file that cannot be saved stays in the message.
    """

    def __init__(
        self, name: str = "save_files_as_artifacts_plugin", *, attach_file_reference: bool = True
    ) -> None:
        super().__init__(name)
        self._attach_file_reference = attach_file_reference
        self._pending_deltas: dict[str, dict[str, int]] = {}

    async def on_user_message_callback(
        self, *, invocation_context: InvocationContext, user_message: types.Content
    ) -> types.Content | None:
        """The message with its files replaced (None when it has none)."""
        ctx = invocation_context

        def filename(index: int, blob: types.Blob) -> str:
            if blob.display_name:
                return blob.display_name
            name = generated_filename(ctx.invocation_id, index)
            logger.info("File without display_name saved as %s", name)
            return name

        async def placeholder(
            index: int, part: types.Part, name: str, version: int
        ) -> list[types.Part]:
            parts = [types.Part(text=f'[Uploaded Artifact: "{name}"]')]
            if self._attach_file_reference:
                mime_type = part.inline_data.mime_type if part.inline_data else None
                reference = await _file_reference(ctx, name, version, mime_type)
                if reference is not None:
                    parts.append(reference)
            return parts

        saved = await save_inline_files(
            ctx,
            user_message,
            who=f"SaveFilesAsArtifactsPlugin {self.name!r}",
            filename=filename,
            replacement=placeholder,
            max_bytes=_MAX_INLINE_BYTES,
            keep_on_error=True,
        )
        if saved is None:
            return None
        content, delta = saved
        if delta:
            self._pending_deltas.setdefault(ctx.invocation_id, {}).update(delta)
        if content.parts == user_message.parts:
            return None  # nothing could be saved: the message is unchanged
        return content

    async def before_agent_callback(
        self, *, agent: BaseAgent, callback_context: CallbackContext
    ) -> types.Content | None:
        """Records the saved versions in the first agent event's ``artifact_delta``."""
        delta = self._pending_deltas.pop(callback_context.invocation_id, None)
        if delta:
            callback_context.actions.artifact_delta.update(delta)
        return None

    async def after_run_callback(self, *, invocation_context: InvocationContext) -> None:
        self._pending_deltas.pop(invocation_context.invocation_id, None)


async def _file_reference(
    ctx: InvocationContext, filename: str, version: int, mime_type: str | None
) -> types.Part | None:
    """A ``file_data`` part for the saved version when its service can name a URI the
    model can fetch (a service with ``get_artifact_version``); else None."""
    lookup: Any = getattr(ctx.artifact_service, "get_artifact_version", None)
    if lookup is None:
        return None
    try:
        found = await lookup(
            app_name=ctx.app_name,
            user_id=ctx.user_id,
            session_id=ctx.session.id,
            filename=filename,
            version=version,
        )
    except Exception as error:
        logger.warning("Could not look up artifact %s version %s: %s", filename, version, error)
        return None
    uri = getattr(found, "canonical_uri", None)
    if not isinstance(uri, str) or not _model_accessible(uri):
        return None
    return types.Part(
        file_data=types.FileData(
            file_uri=uri,
            mime_type=mime_type or getattr(found, "mime_type", None),
            display_name=filename,
        )
    )


def _model_accessible(uri: str) -> bool:
    try:
        scheme = urllib.parse.urlparse(uri).scheme
    except ValueError:
        return False
    return scheme.lower() in _MODEL_ACCESSIBLE_SCHEMES
