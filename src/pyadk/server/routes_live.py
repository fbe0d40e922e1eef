"""WebSocket ``/run_live`` (google-adk's route), text only.

``ws://host/run_live?app_name=A&user_id=U&session_id=S[&modalities=TEXT]``. The client
sends LiveRequest JSON: ``{"content": <Content>}`` runs a turn on the session,
``{"close": true}`` ends the connection. The server sends each event of the turn as
Event JSON (camelCase, None fields left out; partial text events first, as the
model streams), then a content-less Event with ``"turnComplete": true`` (not stored).
A turn that fails sends ``{"error": "Type: message"}`` instead; the connection stays
open. Requests are handled one at a time, in order; a client that disconnects cancels
the turn in progress (its session is free again).

Audio and video are not supported: a ``modalities`` other than ``TEXT`` closes the
connection (code 1003), a ``blob`` or activity marker is answered with an error.
"""

from __future__ import annotations

import asyncio
import json
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
from pyadk.server.models import LiveRequest
from pyadk.server.security import require_user
from pyadk.sessions.errors import SessionConflictError

logger = logging.getLogger(__name__)

CLOSE_NORMAL = 1000
CLOSE_PROTOCOL_ERROR = 1002  # google-adk's code for a missing session
CLOSE_UNSUPPORTED = 1003
CLOSE_POLICY = 1008
CLOSE_TOO_BIG = 1009
CLOSE_SERVER_ERROR = 1011

MEDIA_NOT_SUPPORTED = (
    "Audio and video input is not supported by pyadk's /run_live (text only): send "
    'text as {"content": {"role": "user", "parts": [{"text": "..."}]}}.'
)


class _Gone(Exception):
    """The client went away: nothing more can be sent."""


def unsupported_modalities(modalities: list[str]) -> list[str]:
    """The requested modalities other than TEXT (``TEXT,AUDIO`` and repeats accepted)."""
    names = [m.strip().upper() for value in modalities for m in value.split(",") if m.strip()]
    return [name for name in names if name != "TEXT"]


def make_router(ctx: ServerContext) -> APIRouter:
    router = APIRouter()

    @router.websocket("/run_live")
    async def run_live(
        websocket: WebSocket,
        app_name: str,
        user_id: str,
        session_id: str,
        modalities: list[str] = Query(default=["TEXT"]),
    ) -> None:
        await websocket.accept()
        inbox = _Inbox(websocket)
        try:
            runner = await _open(ctx, websocket, app_name, user_id, session_id, modalities)
            if runner is None:
                return
            while True:
                message = await inbox.next()
                if message is None:
                    return
                request = await _parse(ctx, websocket, message)
                if request is None:
                    continue
                if request.close:
                    await websocket.close(CLOSE_NORMAL)
                    return
                if request.content is None:
                    await _send(websocket, {"error": _no_content(request)})
                    continue
                turn = _turn(websocket, runner, user_id, session_id, request.content)
                if not await inbox.run_unless_gone(turn):
                    return
        except _Gone:
            return
        finally:
            inbox.close()

    return router


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
        task.result()  # re-raises _Gone
        return True

    def close(self) -> None:
        self._reader.cancel()


async def _open(
    ctx: ServerContext,
    websocket: WebSocket,
    app_name: str,
    user_id: str,
    session_id: str,
    modalities: list[str],
) -> Runner | None:
    """The app's runner once the caller, modalities, app and session check out; else
    the connection is closed with an error (and None returned)."""
    others = unsupported_modalities(modalities)
    if others:
        message = f"Modalities {', '.join(others)} are not supported: text only (TEXT)."
        await _refuse(websocket, CLOSE_UNSUPPORTED, message)
        return None
    try:
        require_user(websocket, user_id)
        runner = ctx.runner(app_name)
        await ctx.session(app_name, user_id, session_id)
    except HTTPException as exc:
        code = {403: CLOSE_POLICY, 404: CLOSE_POLICY, 500: CLOSE_SERVER_ERROR}.get(
            exc.status_code, CLOSE_POLICY
        )
        if exc.status_code == 404 and str(exc.detail).startswith("Session not found"):
            code = CLOSE_PROTOCOL_ERROR
        await _refuse(websocket, code, str(exc.detail))
        return None
    return runner


async def _parse(
    ctx: ServerContext, websocket: WebSocket, message: Mapping[str, Any]
) -> LiveRequest | None:
    """The LiveRequest of a received message, or None after answering with an error."""
    data = message.get("text")
    if data is None:
        data = (message.get("bytes") or b"").decode("utf-8", errors="replace")
    if len(data.encode()) > ctx.max_request_bytes:
        limit = ctx.max_request_bytes
        await _refuse(websocket, CLOSE_TOO_BIG, f"Message too large: the limit is {limit} bytes.")
        raise _Gone
    try:
        return LiveRequest.model_validate_json(data)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or 'body'}: {e['msg']}" for e in exc.errors()[:5]
        )
        await _send(websocket, {"error": f"Invalid LiveRequest: {problems}"})
        return None


def _no_content(request: LiveRequest) -> str:
    if request.blob is not None or request.activity_start is not None:
        return MEDIA_NOT_SUPPORTED
    if request.activity_end is not None:
        return MEDIA_NOT_SUPPORTED
    return 'A LiveRequest needs "content" (or "close": true).'


async def _turn(
    websocket: WebSocket,
    runner: Runner,
    user_id: str,
    session_id: str,
    content: types.Content,
) -> None:
    """Runs one turn, sending its events then a turnComplete event, or an error."""
    author, invocation_id = runner.agent.name, ""
    try:
        async with aclosing(
            runner.run_async(
                user_id=user_id,
                session_id=session_id,
                new_message=content,
                run_config=RunConfig(
                    streaming_mode=StreamingMode.SSE, response_modalities=["TEXT"]
                ),
            )
        ) as events:
            async for event in events:
                author, invocation_id = event.author, event.invocation_id
                await _send(websocket, model_json(event, exclude_none=True))
    except _Gone:
        raise
    except Exception as exc:
        if not isinstance(exc, SessionConflictError):
            logger.exception("Live turn failed (session %r)", session_id)
        await _send(websocket, {"error": f"{type(exc).__name__}: {exc}"})
        return
    done = Event(author=author, invocation_id=invocation_id, turn_complete=True)
    await _send(websocket, model_json(done, exclude_none=True))


async def _send(websocket: WebSocket, payload: dict[str, Any]) -> None:
    try:
        await websocket.send_text(json.dumps(payload, separators=(",", ":"), ensure_ascii=False))
    except Exception as exc:  # the client disconnected (starlette and uvicorn differ)
        raise _Gone from exc


async def _refuse(websocket: WebSocket, code: int, message: str) -> None:
    """Sends ``{"error": message}`` and closes with ``code`` (the reason is cut to fit
    a close frame)."""
    await _send(websocket, {"error": message})
    try:
        await websocket.close(code, reason=message.encode()[:120].decode(errors="ignore"))
    except Exception as exc:
        raise _Gone from exc
