"""``/run_live`` in live mode: ``Runner.run_live`` over the WebSocket (google-adk's route).

Used when the agent that would answer has a model with a live connection
(:func:`supports_live`). The client's LiveRequest messages go to a LiveRequestQueue
while every event of the run goes out as Event JSON; the query parameters make the
RunConfig (:class:`LiveOptions`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from contextlib import aclosing
from dataclasses import dataclass
from typing import Any

from pydantic import ConfigDict, ValidationError
from pydantic.alias_generators import to_camel

from pyadk import types
from pyadk.agents.base_agent import BaseAgent
from pyadk.agents.live_request_queue import LiveRequest, LiveRequestQueue
from pyadk.agents.llm_agent import LlmAgent
from pyadk.agents.run_config import RunConfig
from pyadk.models.base_llm import BaseLlm
from pyadk.runners import Runner
from pyadk.server.json_safe import model_json
from pyadk.server.live_socket import (
    CLOSE_NORMAL,
    CLOSE_SERVER_ERROR,
    ClientGone,
    LiveSocket,
    invalid_request,
)
from pyadk.server.models import MAX_LLM_CALLS_LIMIT
from pyadk.sessions.errors import SessionConflictError
from pyadk.sessions.session import Session

logger = logging.getLogger(__name__)

MODALITIES = ("TEXT", "AUDIO", "VIDEO")
"""The ``modalities`` a ``/run_live`` client may ask for (google-adk's)."""

DISCONNECT_GRACE_SECONDS = 2.0
"""How long a run may take to end by itself once its client disconnected (the queue
is closed); then it is cancelled."""

_TRUE = {"1", "true", "t", "yes", "y", "on"}
_FALSE = {"0", "false", "f", "no", "n", "off"}


def supports_live(model: BaseLlm) -> bool:
    """True when ``model`` implements ``connect()`` (live connections)."""
    return type(model).connect is not BaseLlm.connect


def runs_live(runner: Runner, session: Session) -> bool:
    """True when the agent that would answer on ``session`` (the one ``run_live``
    starts with; the first LlmAgent of a workflow agent) has a live model."""
    agent = _first_llm_agent(runner._find_agent_to_run(session, runner.agent))
    if agent is None:
        return False
    try:
        model = agent.canonical_model
    except Exception:  # no model, or one no registry serves: text turns report it
        logger.debug("/run_live: no model for agent %r", agent.name, exc_info=True)
        return False
    return supports_live(model)


def _first_llm_agent(agent: BaseAgent) -> LlmAgent | None:
    if isinstance(agent, LlmAgent):
        return agent
    for sub_agent in agent.sub_agents:
        found = _first_llm_agent(sub_agent)
        if found is not None:
            return found
    return None


def modality_names(values: list[str] | None) -> list[str] | None:
    """The requested modalities, upper case, in order, without repeats (``TEXT,AUDIO``
    and repeated parameters both accepted); None when none was given. Raises
    ``ValueError`` naming a value that is not TEXT, AUDIO or VIDEO."""
    if values is None:
        return None
    names: list[str] = []
    for value in values:
        for item in value.split(","):
            name = item.strip().upper()
            if not name:
                continue
            if name not in MODALITIES:
                raise ValueError(
                    f"Unknown modality {item.strip()!r}: modalities takes TEXT, AUDIO or VIDEO."
                )
            if name not in names:
                names.append(name)
    if not names:
        raise ValueError("modalities is empty: give TEXT, AUDIO or VIDEO.")
    return names


def query_flag(name: str, value: str | None) -> bool | None:
    """A boolean query parameter (true/false, 1/0, yes/no, on/off); None if absent."""
    if value is None:
        return None
    lowered = value.strip().lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    raise ValueError(f"Query parameter {name}={value!r} is not a boolean: use true or false.")


def query_max_llm_calls(value: str | None) -> int | None:
    """The ``max_llm_calls`` query parameter: an integer from 1 to 100000 (as in a
    ``/run`` body); None if absent. Raises ``ValueError`` for any other value."""
    if value is None:
        return None
    try:
        number = int(value.strip())
    except ValueError:
        number = None
    if number is None or not 1 <= number <= MAX_LLM_CALLS_LIMIT:
        raise ValueError(
            f"Query parameter max_llm_calls={value!r} is not an integer from 1 to "
            f"{MAX_LLM_CALLS_LIMIT}."
        )
    return number


@dataclass(frozen=True)
class LiveOptions:
    """The query parameters of a live-mode ``/run_live`` connection."""

    modalities: list[str]
    proactive_audio: bool | None = None
    enable_affective_dialog: bool | None = None
    enable_session_resumption: bool | None = None
    explicit_vad_signal: bool | None = None
    save_live_blob: bool | None = None
    max_llm_calls: int | None = None

    def run_config(self) -> RunConfig:
        """The RunConfig of the run, as google-adk's route builds it (``max_llm_calls``
        a pyadk addition: RunConfig's default when absent)."""
        options: dict[str, Any] = {
            "response_modalities": [types.Modality(name) for name in self.modalities],
            "enable_affective_dialog": self.enable_affective_dialog,
            "explicit_vad_signal": self.explicit_vad_signal,
            "save_live_blob": bool(self.save_live_blob),
        }
        if self.max_llm_calls is not None:
            options["max_llm_calls"] = self.max_llm_calls
        if self.proactive_audio is not None:
            options["proactivity"] = types.ProactivityConfig(proactive_audio=self.proactive_audio)
        if self.enable_session_resumption is not None:
            options["session_resumption"] = types.SessionResumptionConfig(
                transparent=self.enable_session_resumption
            )
        return RunConfig(**options)


class ClientRequest(LiveRequest):
    """A client's LiveRequest message (google-adk's snake_case keys or camelCase)."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="ignore")

    def is_empty(self) -> bool:
        """True when the request asks for nothing (``{}``, or ``partial`` alone)."""
        return not (
            self.content is not None
            or self.blob is not None
            or self.activity_start is not None
            or self.activity_end is not None
            or self.audio_stream_end
            or self.close
            or self.state_delta
        )

    def live_request(self) -> LiveRequest:
        """The request for the LiveRequestQueue."""
        return LiveRequest(**{name: getattr(self, name) for name in self.model_fields_set})


EMPTY_REQUEST = (
    'A LiveRequest needs one of "content", "blob", "activity_start", "activity_end", '
    '"audio_stream_end", "state_delta" or "close".'
)


async def run_realtime(
    socket: LiveSocket,
    runner: Runner,
    user_id: str,
    session_id: str,
    run_config: RunConfig,
) -> None:
    """Runs ``runner.run_live`` for one connection until the run ends (the socket is
    then closed, 1000), fails (``{"error": "Type: message"}``, then 1011) or the client
    disconnects (the queue is closed; a run still going after
    :data:`DISCONNECT_GRACE_SECONDS` is cancelled). The session is free again after."""
    queue = LiveRequestQueue()
    events = asyncio.create_task(
        _forward_events(socket, runner, user_id, session_id, queue, run_config)
    )
    requests = asyncio.create_task(_read_requests(socket, queue))
    client_left = False
    try:
        await asyncio.wait({events, requests}, return_when=asyncio.FIRST_COMPLETED)
        if not events.done():  # the client disconnected: the run ends with the queue
            client_left = True
            if not queue.closed:
                queue.close()
            await asyncio.wait({events}, timeout=DISCONNECT_GRACE_SECONDS)
    finally:
        for task in (events, requests):
            task.cancel()
        await asyncio.gather(events, requests, return_exceptions=True)
    failure = None if requests.cancelled() else requests.exception()
    if failure is not None and not isinstance(failure, ClientGone):
        logger.error("/run_live: reading the client failed", exc_info=failure)
    if client_left or events.cancelled():
        return
    error = events.exception()
    try:
        if error is None:
            await socket.close(CLOSE_NORMAL)
        elif not isinstance(error, ClientGone):
            if not isinstance(error, SessionConflictError):
                logger.error("Live run failed (session %r)", session_id, exc_info=error)
            await socket.refuse(CLOSE_SERVER_ERROR, f"{type(error).__name__}: {error}")
    except ClientGone:
        pass


async def _forward_events(
    socket: LiveSocket,
    runner: Runner,
    user_id: str,
    session_id: str,
    queue: LiveRequestQueue,
    run_config: RunConfig,
) -> None:
    async with aclosing(
        runner.run_live(
            user_id=user_id,
            session_id=session_id,
            live_request_queue=queue,
            run_config=run_config,
        )
    ) as events:
        async for event in events:
            await socket.send(model_json(event, exclude_none=True))


async def _read_requests(socket: LiveSocket, queue: LiveRequestQueue) -> None:
    """Puts the client's requests into ``queue`` until the client disconnects; a request
    that does not validate is answered with an error (the run goes on). Requests after
    ``close`` are ignored."""
    while True:
        try:
            message: Mapping[str, Any] = await socket.websocket.receive()
        except Exception:  # the socket is closed (the server may have closed it)
            logger.debug("/run_live: receive failed", exc_info=True)
            return
        if message["type"] == "websocket.disconnect":
            return
        text = await socket.text_of(message)
        if queue.closed:
            continue
        try:
            request = ClientRequest.model_validate_json(text)
        except ValidationError as exc:
            await socket.send({"error": invalid_request(exc)})
            continue
        if request.is_empty():
            await socket.send({"error": EMPTY_REQUEST})
            continue
        queue.send(request.live_request())
