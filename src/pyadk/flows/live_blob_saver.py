"""Saving a live run's audio as artifacts: ``RunConfig.save_live_blob`` (as google-adk).

With ``save_live_blob`` set, ``Runner.run_live`` keeps in memory, per run:

- the user's audio: each realtime blob sent with ``LiveRequestQueue.send_realtime``
  whose mime type is ``audio/...``;
- the model's audio: each inline ``audio/...`` part of the model's events.

Other media (video frames, images) are not kept, as in google-adk. On the model's
control events the caches are written to the run's artifact service:
``interrupted`` writes the model's audio, ``turn_complete`` the user's then the
model's. Each cache becomes one artifact, its chunks joined in order, with the mime
type of its first chunk (parameters such as ``;rate=16000`` kept), named
``adk_live_audio_storage_{input_audio|output_audio}_{ms}.{ext}``: ``ms`` the time of
the first chunk in milliseconds, ``ext`` the mime subtype (``pcm`` for
``audio/pcm;rate=16000``). For each artifact an event is yielded before the control
event, with one ``file_data`` part whose ``file_uri`` is
``artifact://{app}/{user}/{session}/_adk_live/{filename}#{version}``: author ``user``
(role ``user``) for the user's audio, the agent's name (role ``model``) for the
model's; the runner stores it in the session (it carries no inline data).

A cache is emptied when it is flushed, whether or not the artifact service took it:
a failing save is logged and that audio dropped (the run goes on). Audio still cached
when the agent's live session ends (the client closed the queue, the connection ended,
a live sequence's step called ``task_completed``; not on a transfer, whose target goes
on with the cache) is saved the same way, the user's then the model's, its events the
session's last (google-adk drops it).
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pyadk import types
from pyadk.events.event import Event

if TYPE_CHECKING:
    from pyadk.agents.invocation_context import InvocationContext

logger = logging.getLogger(__name__)

LIVE_ARTIFACT_FOLDER = "_adk_live"
"""The segment of a saved live blob's ``artifact://`` reference before its filename."""

FILENAME_PREFIX = "adk_live_audio_storage_"

NO_ARTIFACT_SERVICE = (
    "RunConfig.save_live_blob is set but the Runner has no artifact_service: live audio "
    "is saved as artifacts. Pass artifact_service=... to the Runner (e.g. "
    "InMemoryArtifactService(), or use InMemoryRunner), or leave save_live_blob False."
)


def require_artifact_service(artifact_service: Any) -> None:
    """Refuses ``save_live_blob`` without an artifact service (ValueError)."""
    if artifact_service is None:
        raise ValueError(NO_ARTIFACT_SERVICE)


def is_live_blob_reference(part: types.Part) -> bool:
    """True for a ``file_data`` part that references a saved live blob (the model
    cannot read ``artifact://`` references: left out of a live connection's history)."""
    data = part.file_data
    uri = (data.file_uri or "") if data is not None else ""
    return uri.startswith("artifact://") and f"/{LIVE_ARTIFACT_FOLDER}/" in uri


@dataclass
class _Chunk:
    role: str
    blob: types.Blob
    timestamp: float


@dataclass
class LiveBlobCache:
    """The audio of a live run not yet saved: the user's and the model's."""

    user: list[_Chunk] = field(default_factory=list)
    model: list[_Chunk] = field(default_factory=list)


def _cache(ctx: InvocationContext) -> LiveBlobCache:
    counters = ctx._counters
    cache = counters.live_blob_cache
    if cache is None:
        cache = counters.live_blob_cache = LiveBlobCache()
    return cache


def _is_audio(blob: types.Blob | None) -> bool:
    return (
        blob is not None
        and isinstance(blob.data, bytes)
        and (blob.mime_type or "").lower().startswith("audio/")
    )


def _keep(chunks: list[_Chunk], role: str, blob: types.Blob, timestamp: float) -> None:
    """Keeps a copy of an audio ``blob`` in ``chunks`` until the next flush."""
    chunks.append(_Chunk(role, types.Blob(data=blob.data, mime_type=blob.mime_type), timestamp))


def cache_user_blob(ctx: InvocationContext, blob: types.Blob) -> None:
    """Keeps a realtime blob the user sent (audio only) until the next flush."""
    if _is_audio(blob):
        _keep(_cache(ctx).user, "user", blob, time.time())


async def save_live_blobs(ctx: InvocationContext, event: Event) -> list[Event]:
    """The live flow's hook on each event from the model, before it is yielded: keeps
    its inline audio, and on ``interrupted`` or ``turn_complete`` saves the cached
    audio; the events referencing the saved artifacts (to yield before ``event``)."""
    content = event.content
    if content is not None and content.parts:
        now = time.time()
        for part in content.parts:
            blob = part.inline_data
            if blob is not None and _is_audio(blob):
                _keep(_cache(ctx).model, "model", blob, now)
    if event.interrupted:  # the model stops: its audio so far is complete
        return await _flush(ctx, user=False)
    if event.turn_complete:
        return await _flush(ctx, user=True)
    return []


async def save_at_session_end(ctx: InvocationContext) -> list[Event]:
    """Saves the audio still cached when an agent's live session ends (no control
    event after it); the events referencing the saved artifacts. Nothing without an
    artifact service."""
    if ctx.artifact_service is None:
        return []
    return await _flush(ctx, user=True)


async def _flush(ctx: InvocationContext, *, user: bool) -> list[Event]:
    cache = ctx._counters.live_blob_cache
    if cache is None:
        return []
    saved: list[Event] = []
    for role, kind in (("user", "input_audio"), ("model", "output_audio")):
        chunks = getattr(cache, role)
        if not chunks or (role == "user" and not user):
            continue
        setattr(cache, role, [])  # audio cached meanwhile waits for the next flush
        event = await _save(ctx, chunks, kind)
        if event is not None:
            saved.append(event)
    return saved


async def _save(ctx: InvocationContext, chunks: list[_Chunk], kind: str) -> Event | None:
    """Saves ``chunks`` as one artifact; the event that references it (None when the
    artifact service failed: logged)."""
    service = ctx.artifact_service
    if service is None:  # refused when the run starts; a context built by hand
        logger.error("save_live_blob: no artifact service, %s dropped.", kind)
        return None
    first = chunks[0]
    mime_type = first.blob.mime_type or "audio/pcm"
    data = b"".join(chunk.blob.data or b"" for chunk in chunks)
    extension = mime_type.split(";", 1)[0].strip().split("/")[-1]
    filename = f"{FILENAME_PREFIX}{kind}_{int(first.timestamp * 1000)}.{extension}"
    session = ctx.session
    try:
        version = await service.save_artifact(
            app_name=ctx.app_name,
            user_id=ctx.user_id,
            session_id=session.id,
            filename=filename,
            artifact=types.Part(inline_data=types.Blob(data=data, mime_type=mime_type)),
        )
    except Exception:
        logger.exception(
            "save_live_blob: saving %s (%d bytes) as %r failed; that audio is dropped.",
            kind,
            len(data),
            filename,
        )
        return None
    uri = (
        f"artifact://{ctx.app_name}/{ctx.user_id}/{session.id}/"
        f"{LIVE_ARTIFACT_FOLDER}/{filename}#{version}"
    )
    author = ctx.agent.name if first.role == "model" else "user"
    return Event(
        invocation_id=ctx.invocation_id,
        author=author,
        branch=ctx.branch,
        content=types.Content(
            role=first.role,
            parts=[types.Part(file_data=types.FileData(file_uri=uri, mime_type=mime_type))],
        ),
        timestamp=first.timestamp,
    )
