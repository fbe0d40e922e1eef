"""ScriptedLiveModel: a live model for tests; each input it receives plays the next reply."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any

from pydantic import Field

from pyadk import types
from pyadk.models.base_llm import BaseLlm
from pyadk.models.base_llm_connection import BaseLlmConnection, RealtimeInput
from pyadk.models.llm_request import LlmRequest
from pyadk.models.llm_response import LlmResponse
from pyadk.testing.scripted_models import (
    Reply,
    ScriptExhaustedError,
    Stream,
    _aggregate,
    _content,
)

_END = object()


class ServerClose:
    """A scripted live server closing the connection (put it in a reply's list of
    responses): ``receive()`` ends there, and sending to the connection fails once the
    reply is played, as when the real server closes. With
    ``RunConfig.session_resumption`` and a handle, the live run reconnects."""

    def __repr__(self) -> str:
        return "ServerClose()"


def resumption_update(handle: str) -> LlmResponse:
    """A scripted live server's ``session_resumption_update`` with a new ``handle``."""
    update = types.LiveServerSessionResumptionUpdate(new_handle=handle, resumable=True)
    return LlmResponse(live_session_resumption_update=update)


def go_away(time_left: str = "10s") -> LlmResponse:
    """A scripted live server's ``go_away`` notice (it will close the connection)."""
    return LlmResponse(go_away=types.LiveServerGoAway(time_left=time_left))


def live_responses(reply: Reply) -> list[LlmResponse | ServerClose] | BaseException:
    """What a live model sends for one scripted reply.

    A string, Part, list of parts or Content: the whole content, then ``turn_complete``.
    A :class:`~pyadk.testing.Stream`: each chunk as a partial response, the whole text,
    then ``turn_complete``. An LlmResponse, a :class:`ServerClose`, or a list of them:
    sent as they are (no ``turn_complete`` added; a ServerClose ends the connection).
    An exception: raised by ``receive()``.
    """
    if isinstance(reply, BaseException):
        return reply
    if isinstance(reply, LlmResponse | ServerClose):
        return [reply]
    if (
        isinstance(reply, list)
        and reply
        and all(isinstance(r, LlmResponse | ServerClose) for r in reply)
    ):
        return list(reply)
    done = LlmResponse(turn_complete=True)
    if isinstance(reply, Stream):
        chunks = [LlmResponse(content=_content([chunk]), partial=True) for chunk in reply.chunks]
        whole = LlmResponse(
            content=types.Content(role="model", parts=_aggregate(reply.chunks)),
            usage_metadata=reply.usage,
        )
        return [*chunks, whole, done]
    return [LlmResponse(content=_content(reply)), done]


class ScriptedLiveConnection(BaseLlmConnection):
    """One connection of a :class:`ScriptedLiveModel`; records what it was sent.

    ``sent`` holds, in order, every content and realtime input after the history
    (``history``); ``partial_contents`` the contents sent as part of a turn;
    ``resumption_handle`` the handle it was opened with (a resumed session) or None.
    ``closed_by_server``: a scripted :class:`ServerClose` ended it.
    """

    def __init__(self, model: ScriptedLiveModel, request: LlmRequest) -> None:
        self.model = model
        self.request = request
        self.history: list[types.Content] | None = None
        self.sent: list[types.Content | RealtimeInput] = []
        self.partial_contents: list[types.Content] = []
        self.closed = False
        self.closed_by_server = False
        self._server_closed = False  # a ServerClose was played: sending fails
        self._out: asyncio.Queue[Any] = asyncio.Queue()

    @property
    def resumption_handle(self) -> str | None:
        """The ``session_resumption.handle`` of the connect config (None: a new session)."""
        live = self.request.live_connect_config
        resumption = live.session_resumption if live is not None else None
        return resumption.handle if resumption is not None else None

    def _check_open(self) -> None:
        if self.closed:
            raise ConnectionError(f"ScriptedLiveModel {self.model.model!r}: connection is closed.")
        if self._server_closed:
            raise ConnectionError(
                f"ScriptedLiveModel {self.model.model!r}: the server closed the connection."
            )

    def _play_next(self, trigger: object) -> None:
        """Queues the model's next scripted reply (its answer to ``trigger``)."""
        model = self.model
        index = model.reply_count
        model.reply_count += 1
        if index >= len(model.replies):
            self._out.put_nowait(
                ScriptExhaustedError(
                    f"ScriptedLiveModel {model.model!r} got input #{index + 1} to answer but "
                    f"has only {len(model.replies)} scripted replies. The input: {trigger!r}"
                )
            )
            return
        responses = live_responses(model.replies[index])
        if isinstance(responses, BaseException):
            self._out.put_nowait(responses)
            return
        for response in responses:
            self._out.put_nowait(response)
            if isinstance(response, ServerClose):
                self._server_closed = True

    async def send_history(self, history: list[types.Content]) -> None:
        self._check_open()
        self.history = list(history)
        if history and history[-1].role == "user":
            self._play_next(history[-1])

    async def send_content(self, content: types.Content) -> None:
        await self._send_content(content)

    async def _send_content(self, content: types.Content, *, partial: bool = False) -> None:
        self._check_open()
        self.sent.append(content)
        if partial:
            self.partial_contents.append(content)
            return
        self._play_next(content)

    async def send_realtime(self, blob: RealtimeInput) -> None:
        self._check_open()
        self.sent.append(blob)
        if isinstance(blob, types.Blob):
            if self.model.reply_to_realtime:
                self._play_next(blob)
        elif isinstance(blob, types.ActivityEnd) or (
            isinstance(blob, types.LiveClientRealtimeInput) and blob.audio_stream_end
        ):
            self._play_next(blob)

    async def receive(self) -> AsyncGenerator[LlmResponse, None]:
        while True:
            if self.closed and self._out.empty():
                return
            item = await self._out.get()
            if item is _END:
                return
            if isinstance(item, ServerClose):
                self.closed = self.closed_by_server = True
                return
            if isinstance(item, BaseException):
                raise item
            yield item

    async def close(self) -> None:
        if not self.closed:
            self.closed = True
            self._out.put_nowait(_END)


class ScriptedLiveModel(BaseLlm):
    """A live model whose replies are scripted: ``Runner.run_live`` runs offline.

    Each input the model answers takes the next reply: content sent as a whole turn
    (user text, function responses), a history ending with the user's turn, an
    ``activity_end`` or ``audio_stream_end`` signal, and realtime blobs when
    ``reply_to_realtime`` is set. Replies are those :func:`live_responses` describes.
    An input beyond the script makes ``receive()`` raise :class:`ScriptExhaustedError`.

    ``connect_error`` makes ``connect()`` raise it (a model that cannot be reached);
    ``reconnect_error`` only when the connection resumes a session (its connect config
    has a ``session_resumption.handle``): a server that cannot resume.
    ``requests`` and ``connections`` record each connection and what it was sent.

    Long sessions: script the server's :func:`resumption_update`, :func:`go_away` and
    :class:`ServerClose` in a reply's list; replies go on across connections (a resumed
    connection answers the next input with the next reply).
    """

    model: str = "scripted-live"
    replies: list[Any] = Field(default_factory=list)
    reply_to_realtime: bool = False
    connect_error: BaseException | None = None
    reconnect_error: BaseException | None = None
    reply_count: int = 0
    """How many replies were played so far."""
    requests: list[LlmRequest] = Field(default_factory=list)
    connections: list[ScriptedLiveConnection] = Field(default_factory=list)

    def __init__(self, replies: Sequence[Reply] | None = None, **data: Any) -> None:
        super().__init__(replies=list(replies or []), **data)

    @asynccontextmanager
    async def connect(self, llm_request: LlmRequest) -> AsyncIterator[BaseLlmConnection]:
        self.requests.append(llm_request)
        if self.connect_error is not None:
            raise self.connect_error
        connection = ScriptedLiveConnection(self, llm_request)
        if self.reconnect_error is not None and connection.resumption_handle:
            raise self.reconnect_error
        self.connections.append(connection)
        try:
            yield connection
        finally:
            await connection.close()

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        raise NotImplementedError(
            f"ScriptedLiveModel {self.model!r} only answers live runs (Runner.run_live); "
            "use ScriptedModel for run_async."
        )
        yield  # pragma: no cover
