"""The WebSocket side of ``/run_live``, shared by its two modes: close codes, JSON
messages, refusals and the size limit of client messages."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from typing import Any

from fastapi import WebSocket
from pydantic import ValidationError

CLOSE_NORMAL = 1000
CLOSE_PROTOCOL_ERROR = 1002  # google-adk's code for a missing session
CLOSE_UNSUPPORTED = 1003
CLOSE_POLICY = 1008
CLOSE_TOO_BIG = 1009
CLOSE_SERVER_ERROR = 1011

_MAX_REASON_BYTES = 120  # a close frame's reason holds 123 bytes


class ClientGone(Exception):
    """The client went away (or the socket was closed): nothing more can be sent."""


class LiveSocket:
    """A ``/run_live`` connection: sends JSON one message at a time (the event and
    request tasks of a live run may send at once), refuses, closes."""

    def __init__(self, websocket: WebSocket, max_message_bytes: int) -> None:
        self.websocket = websocket
        self.max_message_bytes = max_message_bytes
        self._lock = asyncio.Lock()

    async def send(self, payload: Mapping[str, Any]) -> None:
        """Sends ``payload`` as compact JSON; :class:`ClientGone` if the client left."""
        text = json.dumps(payload, separators=(",", ":"), ensure_ascii=False)
        async with self._lock:
            try:
                await self.websocket.send_text(text)
            except Exception as exc:  # the client disconnected (starlette and uvicorn differ)
                raise ClientGone from exc

    async def close(self, code: int, message: str = "") -> None:
        """Closes with ``code`` (``message`` cut to fit a close frame)."""
        reason = message.encode()[:_MAX_REASON_BYTES].decode(errors="ignore")
        async with self._lock:
            try:
                await self.websocket.close(code, reason=reason)
            except Exception as exc:
                raise ClientGone from exc

    async def refuse(self, code: int, message: str) -> None:
        """Sends ``{"error": message}``, then closes with ``code``."""
        await self.send({"error": message})
        await self.close(code, message)

    async def text_of(self, message: Mapping[str, Any]) -> str:
        """The text of a received message (bytes are read as UTF-8). One over the size
        limit closes the connection (1009) and raises :class:`ClientGone`."""
        data = message.get("text")
        if data is None:
            data = (message.get("bytes") or b"").decode("utf-8", errors="replace")
        if len(data.encode()) > self.max_message_bytes:
            limit = self.max_message_bytes
            await self.refuse(CLOSE_TOO_BIG, f"Message too large: the limit is {limit} bytes.")
            raise ClientGone
        text: str = data
        return text


def invalid_request(exc: ValidationError) -> str:
    """The error message of a LiveRequest that does not validate (its first problems)."""
    problems = "; ".join(
        f"{'.'.join(str(p) for p in e['loc']) or 'body'}: {e['msg']}" for e in exc.errors()[:5]
    )
    return f"Invalid LiveRequest: {problems}"
