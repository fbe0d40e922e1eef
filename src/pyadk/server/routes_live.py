"""WebSocket ``/run_live`` (google-adk's route): live mode, or text turns.

``ws://host/run_live?app_name=A&user_id=U&session_id=S[&modalities=AUDIO][&...]``.
The caller, the app and the session are checked first (refusals send
``{"error": ...}``, then close: 1002 unknown session, 1008 unknown app or another
user's data, 1011 an app that fails to load); then the mode depends on the model of
the agent that would answer (the one ``Runner.run_live`` starts with):

- **Live mode**, for a model with a live connection (``connect()`` implemented:
  Gemini, ``pyadk.testing.ScriptedLiveModel``): as google-adk, ``runner.run_live``
  with a RunConfig from the query (``modalities`` TEXT/AUDIO/VIDEO, default AUDIO;
  ``proactive_audio``, ``enable_affective_dialog``, ``enable_session_resumption``,
  ``explicit_vad_signal``, ``save_live_blob``: the run's audio saved as artifacts in
  the server's artifact service; ``max_llm_calls``). Each client
  message is a LiveRequest (``content``, ``blob``, ``activity_start``,
  ``activity_end``, ``audio_stream_end``, ``state_delta``, ``close``; snake_case or
  camelCase) put into the run's LiveRequestQueue; every event of the run is sent as
  Event JSON. The socket is closed (1000) when the run ends, e.g. after ``close``; a
  failed run sends ``{"error": "Type: message"}`` and closes with 1011; a client that
  disconnects closes the queue, which ends the run (see :mod:`live_realtime`).
- **Text turns**, for other models (a pyadk feature: ``/run_live`` works with any
  model): ``{"content": <Content>}`` runs an ordinary turn, whose events are sent, then
  a content-less Event with ``"turnComplete": true`` (not stored); a failed turn sends
  ``{"error": "Type: message"}`` and the connection stays open; ``{"close": true}``
  closes (1000). Requests are handled one at a time, in order; a client that
  disconnects cancels the turn in progress. ``modalities`` other than TEXT and
  ``save_live_blob=true`` (text turns have no live audio to save) are refused (1003),
  and so are blobs and activity markers (an error; the connection stays open);
  ``max_llm_calls`` applies to each turn.

Invalid requests are answered with ``{"error": "Invalid LiveRequest: ..."}`` (the
connection stays open); a message over ``max_request_bytes`` closes it (1009); a bad
query value (an unknown modality, a flag that is not a boolean, a ``max_llm_calls``
that is not an integer from 1 to 100000) is refused (1008).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine, Mapping
from contextlib import aclosing
from typing import Any

from fastapi import APIRouter, HTTPException, Query, WebSocket
from pydantic import ValidationError

from pyadk import types
from pyadk.agents.run_config import RunConfig, StreamingMode
from pyadk.events.event import Event
from pyadk.runners import Runner
from pyadk.server.context import ServerContext
from pyadk.server.json_safe import model_json
from pyadk.server.live_realtime import (
    LiveOptions,
    modality_names,
    query_flag,
    query_max_llm_calls,
    run_realtime,
    runs_live,
)
from pyadk.server.live_socket import (
    CLOSE_NORMAL,
    CLOSE_POLICY,
    CLOSE_PROTOCOL_ERROR,
    CLOSE_SERVER_ERROR,
    CLOSE_TOO_BIG,
    CLOSE_UNSUPPORTED,
    ClientGone,
    LiveSocket,
    invalid_request,
)
from pyadk.server.models import LiveRequest
from pyadk.server.security import require_user
from pyadk.sessions.errors import SessionConflictError
from pyadk.sessions.session import Session

__all__ = [
    "CLOSE_NORMAL",
    "CLOSE_POLICY",
    "CLOSE_PROTOCOL_ERROR",
    "CLOSE_SERVER_ERROR",
    "CLOSE_TOO_BIG",
    "CLOSE_UNSUPPORTED",
    "MEDIA_NOT_SUPPORTED",
    "SAVE_LIVE_BLOB_NOT_SUPPORTED",
    "make_router",
]

logger = logging.getLogger(__name__)

MEDIA_NOT_SUPPORTED = (
    "Audio and video input needs an agent with a live model (one that implements "
    "connect(), e.g. Gemini Live): this app's /run_live runs text turns. Send text as "
    '{"content": {"role": "user", "parts": [{"text": "..."}]}}.'
)
SAVE_LIVE_BLOB_NOT_SUPPORTED = (
    "save_live_blob needs an agent with a live model (one that implements connect(), "
    "e.g. Gemini Live): this app's /run_live runs text turns, which have no live audio "
    "to save. Leave it out (or false)."
)


def make_router(ctx: ServerContext) -> APIRouter:
    router = APIRouter()

    @router.websocket("/run_live")
    async def run_live(
        websocket: WebSocket,
        app_name: str,
        user_id: str,
        session_id: str,
        modalities: list[str] | None = Query(default=None),
        proactive_audio: str | None = None,
        enable_affective_dialog: str | None = None,
        enable_session_resumption: str | None = None,
        save_live_blob: str | None = None,
        explicit_vad_signal: str | None = None,
        max_llm_calls: str | None = None,
    ) -> None:
        await websocket.accept()
        socket = LiveSocket(websocket, ctx.max_request_bytes)
        raw_flags = {
            "proactive_audio": proactive_audio,
            "enable_affective_dialog": enable_affective_dialog,
            "enable_session_resumption": enable_session_resumption,
            "save_live_blob": save_live_blob,
            "explicit_vad_signal": explicit_vad_signal,
        }
        try:
            try:
                names = modality_names(modalities)
                flags = {name: query_flag(name, value) for name, value in raw_flags.items()}
                llm_calls = query_max_llm_calls(max_llm_calls)
            except ValueError as exc:
                await socket.refuse(CLOSE_POLICY, str(exc))
                return
            opened = await _open(ctx, socket, app_name, user_id, session_id)
            if opened is None:
                return
            runner, session = opened
            if runs_live(runner, session):
                options = LiveOptions(
                    modalities=names or ["AUDIO"], max_llm_calls=llm_calls, **flags
                )
                await run_realtime(socket, runner, user_id, session_id, options.run_config())
                return
            others = [name for name in names or [] if name != "TEXT"]
            if others:
                message = (
                    f"Modalities {', '.join(others)} are not supported: text only (TEXT). "
                    f"App {app_name!r} has no live model (one that implements connect(), "
                    "e.g. Gemini Live), so /run_live runs text turns."
                )
                await socket.refuse(CLOSE_UNSUPPORTED, message)
                return
            if flags["save_live_blob"]:
                await socket.refuse(CLOSE_UNSUPPORTED, SAVE_LIVE_BLOB_NOT_SUPPORTED)
                return
            limit = {} if llm_calls is None else {"max_llm_calls": llm_calls}
            config = RunConfig(
                streaming_mode=StreamingMode.SSE, response_modalities=["TEXT"], **limit
            )
            await _text_turns(websocket, socket, runner, user_id, session_id, config)
        except ClientGone:
            return

    return router


async def _open(
    ctx: ServerContext, socket: LiveSocket, app_name: str, user_id: str, session_id: str
) -> tuple[Runner, Session] | None:
    """The app's runner and the session once the caller, app and session check out;
    else the connection is closed with an error (and None returned)."""
    try:
        require_user(socket.websocket, user_id)
        runner = ctx.runner(app_name)
        session = await ctx.session(app_name, user_id, session_id)
    except HTTPException as exc:
        code = {403: CLOSE_POLICY, 404: CLOSE_POLICY, 500: CLOSE_SERVER_ERROR}.get(
            exc.status_code, CLOSE_POLICY
        )
        if exc.status_code == 404 and str(exc.detail).startswith("Session not found"):
            code = CLOSE_PROTOCOL_ERROR
        await socket.refuse(code, str(exc.detail))
        return None
    return runner, session


# -- text turns (models without a live connection) -------------------------------------


async def _text_turns(
    websocket: WebSocket,
    socket: LiveSocket,
    runner: Runner,
    user_id: str,
    session_id: str,
    run_config: RunConfig,
) -> None:
    """Runs a turn per ``content`` request, in order, until ``close`` or the client
    leaves."""
    inbox = _Inbox(websocket)
    try:
        while True:
            message = await inbox.next()
            if message is None:
                return
            request = await _parse(socket, message)
            if request is None:
                continue
            if request.close:
                await socket.close(CLOSE_NORMAL)
                return
            if request.content is None:
                await socket.send({"error": _no_content(request)})
                continue
            turn = _turn(socket, runner, user_id, session_id, request.content, run_config)
            if not await inbox.run_unless_gone(turn):
                return
    finally:
        inbox.close()


class _Inbox:
    """Receives the client's messages in a task, so that a turn in progress is cancelled
    (its session freed) as soon as the client disconnects; messages sent meanwhile
    wait their turn."""

    def __init__(self, websocket: WebSocket) -> None:
        self._messages: asyncio.Queue[Mapping[str, Any] | None] = asyncio.Queue()
        self._gone = asyncio.Event()
        self._reader = asyncio.create_task(self._read(websocket))

    async def _read(self, websocket: WebSocket) -> None:
        try:
            while True:
                message = await websocket.receive()
                if message["type"] == "websocket.disconnect":
                    break
                self._messages.put_nowait(message)
        except Exception:  # the socket is closed (the server may have closed it)
            logger.debug("/run_live: receive failed", exc_info=True)
        finally:  # disconnected: nothing more will come
            self._gone.set()
            self._messages.put_nowait(None)

    async def next(self) -> Mapping[str, Any] | None:
        """The next message; None once the client is gone."""
        return await self._messages.get()

    async def run_unless_gone(self, work: Coroutine[Any, Any, None]) -> bool:
        """Runs ``work``; cancels it and returns False if the client disconnects first."""
        task = asyncio.create_task(work)
        gone = asyncio.create_task(self._gone.wait())
        try:
            await asyncio.wait({task, gone}, return_when=asyncio.FIRST_COMPLETED)
        except BaseException:  # the connection handler itself is cancelled
            task.cancel()
            raise
        finally:
            gone.cancel()
        if not task.done():
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
            return False
        task.result()  # re-raises ClientGone
        return True

    def close(self) -> None:
        self._reader.cancel()


async def _parse(socket: LiveSocket, message: Mapping[str, Any]) -> LiveRequest | None:
    """The LiveRequest of a received message, or None after answering with an error."""
    data = await socket.text_of(message)
    try:
        return LiveRequest.model_validate_json(data)
    except ValidationError as exc:
        await socket.send({"error": invalid_request(exc)})
        return None


def _no_content(request: LiveRequest) -> str:
    if request.blob is not None or request.activity_start is not None:
        return MEDIA_NOT_SUPPORTED
    if request.activity_end is not None:
        return MEDIA_NOT_SUPPORTED
    return 'A LiveRequest needs "content" (or "close": true).'


async def _turn(
    socket: LiveSocket,
    runner: Runner,
    user_id: str,
    session_id: str,
    content: types.Content,
    run_config: RunConfig,
) -> None:
    """Runs one turn, sending its events then a turnComplete event, or an error."""
    author, invocation_id = runner.agent.name, ""
    try:
        async with aclosing(
            runner.run_async(
                user_id=user_id,
                session_id=session_id,
                new_message=content,
                run_config=run_config,
            )
        ) as events:
            async for event in events:
                author, invocation_id = event.author, event.invocation_id
                await socket.send(model_json(event, exclude_none=True))
    except ClientGone:
        raise
    except Exception as exc:
        if not isinstance(exc, SessionConflictError):
            logger.exception("Live turn failed (session %r)", session_id)
        await socket.send({"error": f"{type(exc).__name__}: {exc}"})
        return
    done = Event(author=author, invocation_id=invocation_id, turn_complete=True)
    await socket.send(model_json(done, exclude_none=True))
