"""ActiveStreamingTool: a streaming tool running in the background of a live run."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pyadk.agents.live_request_queue import LiveRequestQueue


@dataclass(kw_only=True)
class ActiveStreamingTool:
    """One running call of a streaming (async-generator) tool in a live run, as
    ``InvocationContext.active_streaming_tools`` shows it."""

    task: asyncio.Task[Any] | None = None
    """The task that runs the tool's generator."""
    stream: LiveRequestQueue | None = None
    """The tool's ``input_stream`` (a copy of the client's requests), if it takes one."""
