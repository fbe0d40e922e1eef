"""Server-sent events: message formatting and the streaming response."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Mapping
from typing import Any

from starlette.responses import StreamingResponse

SSE_MEDIA_TYPE = "text/event-stream"
SSE_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}


def sse_message(data: str, *, id: str | None = None, event: str | None = None) -> str:
    """One SSE message; multi-line ``data`` becomes several ``data:`` lines."""
    lines: list[str] = []
    if id is not None:
        if "\n" in id or "\r" in id:
            raise ValueError("An SSE id cannot contain a newline.")
        lines.append(f"id: {id}")
    if event is not None:
        lines.append(f"event: {event}")
    lines.extend(f"data: {line}" for line in data.splitlines() or [""])
    return "\n".join(lines) + "\n\n"


def sse_json(payload: Any, *, id: str | None = None) -> str:
    """An SSE message whose data is ``payload`` as compact JSON on one line."""
    return sse_message(json.dumps(payload, separators=(",", ":"), ensure_ascii=False), id=id)


def sse_comment(text: str) -> str:
    """A comment line (ignored by SSE parsers): used as a keep-alive."""
    return f": {text}\n\n"


def sse_response(
    body: AsyncIterator[str], *, headers: Mapping[str, str] | None = None
) -> StreamingResponse:
    """A ``text/event-stream`` response streaming ``body``."""
    return StreamingResponse(
        body, media_type=SSE_MEDIA_TYPE, headers={**SSE_HEADERS, **(headers or {})}
    )
