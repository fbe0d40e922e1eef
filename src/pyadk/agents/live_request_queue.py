"""LiveRequestQueue: what a client sends to a live (bidirectional) run."""

import asyncio
from typing import Any

from pydantic import BaseModel, ConfigDict

from pyadk import types


class LiveRequest(BaseModel):
    """One message of the client to a live run.

    Exactly one kind is acted on, in this order: ``activity_start``, ``activity_end``,
    ``audio_stream_end``, ``blob``, then ``content``; ``close`` ends the run.
    ``state_delta`` is applied to the session in any case.
    """

    model_config = ConfigDict(ser_json_bytes="base64", val_json_bytes="base64", defer_build=True)

    content: types.Content | None = None
    """A turn sent to the model as a whole (text, or function responses)."""
    blob: types.Blob | None = None
    """Realtime input (an audio chunk, a video frame) streamed to the model."""
    activity_start: types.ActivityStart | None = None
    """The user started speaking (only with client-side voice activity detection)."""
    activity_end: types.ActivityEnd | None = None
    """The user stopped speaking (only with client-side voice activity detection)."""
    audio_stream_end: bool = False
    """The audio stream paused (e.g. the microphone muted): the model flushes its input."""
    close: bool = False
    """Ends the live run: the model connection closes."""
    partial: bool = False
    """``content`` continues the user's turn without completing it."""
    state_delta: dict[str, Any] | None = None
    """State changes applied to the session (even without content)."""


class LiveRequestQueue:
    """The client's side of a live run: send content, realtime blobs and activity
    signals to the model, and ``close()`` to end the run.

    Sending never blocks; the run reads the requests in order.
    """

    def __init__(self) -> None:
        self._queue: asyncio.Queue[LiveRequest] = asyncio.Queue()
        self._closed = False
        self._ended = False  # set by the live run that took the close request

    @property
    def closed(self) -> bool:
        """True once :meth:`close` was called (or a ``close`` request sent)."""
        return self._closed

    def close(self) -> None:
        """Ends the live run once the requests sent before are handled."""
        self.send(LiveRequest(close=True))

    def send_content(self, content: types.Content | Any, partial: bool = False) -> None:
        """Sends a whole turn (``partial=True``: part of a turn still going on)."""
        self.send(LiveRequest(content=types.Content.model_validate(content), partial=partial))

    def send_realtime(self, blob: types.Blob | Any) -> None:
        """Streams a blob (an audio chunk, a video frame) to the model."""
        self.send(LiveRequest(blob=types.Blob.model_validate(blob)))

    def send_activity_start(self) -> None:
        """Signals that the user started speaking (client-side voice activity detection)."""
        self.send(LiveRequest(activity_start=types.ActivityStart()))

    def send_activity_end(self) -> None:
        """Signals that the user stopped speaking (client-side voice activity detection)."""
        self.send(LiveRequest(activity_end=types.ActivityEnd()))

    def send_audio_stream_end(self) -> None:
        """Signals a pause of the audio stream, so the model flushes the audio it holds."""
        self.send(LiveRequest(audio_stream_end=True))

    def send(self, req: LiveRequest) -> None:
        """Queues ``req`` as it is."""
        if req.close:
            self._closed = True
        self._queue.put_nowait(req)

    async def get(self) -> LiveRequest:
        """The next request (waits for one)."""
        return await self._queue.get()
