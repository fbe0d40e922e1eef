"""BaseLlmConnection: a live (bidirectional) connection to a model."""

from __future__ import annotations

import abc
from collections.abc import AsyncGenerator

from pyadk import types
from pyadk.models.llm_response import LlmResponse

RealtimeInput = types.Blob | types.ActivityStart | types.ActivityEnd | types.LiveClientRealtimeInput
"""What ``send_realtime`` takes: a blob, a user-activity signal, or ``audio_stream_end``."""


class LiveConnectionClosedError(ConnectionError):
    """The model's server closed a live connection abnormally (``code``: its close code).

    ``resumable``: the connection was lost (not refused), so a live run configured with
    ``RunConfig.session_resumption`` reconnects with its latest handle.
    """

    def __init__(self, message: str, *, code: int | None = None, resumable: bool = True) -> None:
        super().__init__(message)
        self.code = code
        self.resumable = resumable


class BaseLlmConnection(abc.ABC):
    """A live model session, opened by :meth:`BaseLlm.connect`.

    The live flow sends the history once, then user content, function responses and
    realtime input as they come, while it reads :meth:`receive` concurrently.
    """

    @abc.abstractmethod
    async def send_history(self, history: list[types.Content]) -> None:
        """Sends the conversation so far, right after connecting. The model answers
        when the last content is the user's, else it waits for input."""

    @abc.abstractmethod
    async def send_content(self, content: types.Content) -> None:
        """Sends a whole turn: user content, or function responses (then every part
        is one). The model answers it."""

    async def _send_content(self, content: types.Content, *, partial: bool = False) -> None:
        """Sends content; ``partial`` content continues the user's turn without
        completing it. By default ``partial`` is ignored (a whole turn is sent);
        connections that can send part of a turn override this, as in google-adk."""
        await self.send_content(content)

    @abc.abstractmethod
    async def send_realtime(self, blob: RealtimeInput) -> None:
        """Streams an audio chunk or video frame (or an activity signal); the model
        decides by voice activity when to answer."""

    @abc.abstractmethod
    def receive(self) -> AsyncGenerator[LlmResponse, None]:
        """The model's responses: partial text, whole text, function calls,
        transcriptions, ``turn_complete`` and ``interrupted`` signals, session
        resumption updates and ``go_away`` notices. It may end after a turn (it is then
        called again) and ends for good once the connection closed (a call that yields
        nothing); a connection lost abnormally raises :class:`LiveConnectionClosedError`."""

    @abc.abstractmethod
    async def close(self) -> None:
        """Closes the connection; :meth:`receive` then ends."""
