"""The client's input around a ``go_away``: kept for the resumed connection, in order."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import pytest
from live_support import TEXT, make_harness, texts, user

from pyadk import types
from pyadk.agents import LiveRequestQueue, LlmAgent
from pyadk.models.base_llm_connection import BaseLlmConnection
from pyadk.models.llm_request import LlmRequest
from pyadk.models.llm_response import LlmResponse
from pyadk.testing import (
    ScriptedLiveModel,
    go_away,
    live_responses,
    resumption_update,
    scripted_live_model,
)

RESUMING = TEXT.model_copy(update={"session_resumption": types.SessionResumptionConfig()})
AUDIO = "audio/pcm;rate=16000"


class WatchedConnection(scripted_live_model.ScriptedLiveConnection):
    """A scripted connection that records what it was sent before its ``go_away`` and
    calls the test's hook as the flow reads the ``go_away``."""

    on_go_away: Callable[[], None] | None = None

    def __init__(self, model: ScriptedLiveModel, request: LlmRequest) -> None:
        super().__init__(model, request)
        self.sent_before_go_away: int | None = None

    async def receive(self) -> AsyncGenerator[LlmResponse, None]:
        async for response in super().receive():
            if response.go_away is not None:
                self.sent_before_go_away = len(self.sent)
                if WatchedConnection.on_go_away is not None:
                    WatchedConnection.on_go_away()
            yield response


class SlowToReconnect(ScriptedLiveModel):
    """Calls ``while_connecting`` (the client sending meanwhile) before a resumed
    connection is ready."""

    while_connecting: Any = None

    @asynccontextmanager
    async def connect(self, llm_request: LlmRequest) -> AsyncIterator[BaseLlmConnection]:
        live = llm_request.live_connect_config
        if live and live.session_resumption and live.session_resumption.handle:
            await asyncio.sleep(0.01)
            if self.while_connecting is not None:
                self.while_connecting()
        async with super().connect(llm_request) as connection:
            yield connection


@pytest.fixture(autouse=True)
def watched(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(scripted_live_model, "ScriptedLiveConnection", WatchedConnection)
    monkeypatch.setattr(WatchedConnection, "on_go_away", None)


def blob(data: bytes) -> types.Blob:
    return types.Blob(mime_type=AUDIO, data=data)


def described(sent: list[Any]) -> list[str]:
    found = []
    for item in sent:
        if isinstance(item, types.Content):
            found.append("".join(p.text or "" for p in item.parts or []))
        elif isinstance(item, types.Blob):
            found.append(f"blob:{item.data!r}")
        else:
            found.append(type(item).__name__)
    return found


async def test_input_sent_as_go_away_arrives_or_while_reconnecting_goes_to_the_new_one() -> None:
    model = SlowToReconnect(
        [
            [resumption_update("h-1"), *live_responses("Hello!"), go_away("5s")],
            "A.",
            "B.",
        ]
    )
    live = await make_harness(LlmAgent(name="assistant", model=model))
    queue = LiveRequestQueue()
    queue.send_content(user("hi"))

    def as_go_away_arrives() -> None:  # the sender is ready to take these at once
        queue.send_content(user("a"))
        queue.send_realtime(blob(b"1"))

    def while_connecting() -> None:
        queue.send_realtime(blob(b"2"))
        queue.send_activity_start()
        queue.send_content(user("b"))

    WatchedConnection.on_go_away = as_go_away_arrives
    model.while_connecting = while_connecting

    events = await live.run(queue, close_after_turns=3, run_config=RESUMING)

    assert texts(events) == ["Hello!", "A.", "B."]
    first, second = model.connections
    assert isinstance(first, WatchedConnection)
    # The old connection got nothing after its go_away ...
    assert first.sent_before_go_away is not None
    assert described(first.sent) == ["hi"]
    assert len(first.sent) == first.sent_before_go_away
    # ... the new one everything since, in order, once each.
    assert second.resumption_handle == "h-1"
    assert described(second.sent) == ["a", "blob:b'1'", "blob:b'2'", "ActivityStart", "b"]
    stored = await live.stored()
    assert [e.content.parts[0].text for e in stored if e.author == "user" and e.content] == [
        "hi",
        "a",
        "b",
    ]


async def test_input_the_old_connection_took_before_go_away_is_not_sent_again() -> None:
    model = ScriptedLiveModel(
        [
            [resumption_update("h-1"), *live_responses("One.")],
            [*live_responses("Two."), go_away("5s")],
            "Three.",
        ]
    )
    live = await make_harness(LlmAgent(name="assistant", model=model))
    queue = LiveRequestQueue()
    queue.send_content(user("one"))
    turns = 0

    async def talk(event: Any) -> None:
        nonlocal turns
        if event.turn_complete:
            turns += 1
            if turns == 1:  # taken by the first connection before its go_away
                queue.send_content(user("two"))
                queue.send_realtime(blob(b"x"))

    async def after_reconnection() -> None:
        while len(model.connections) < 2:
            await asyncio.sleep(0.005)
        queue.send_content(user("three"))

    follow_up = asyncio.create_task(after_reconnection())
    events = await live.run(queue, on_event=talk, close_after_turns=3, run_config=RESUMING)
    await follow_up

    assert texts(events) == ["One.", "Two.", "Three."]
    first, second = model.connections
    assert described(first.sent) == ["one", "two", "blob:b'x'"]
    assert described(second.sent) == ["three"]


async def test_the_client_closing_as_go_away_arrives_ends_the_run() -> None:
    model = ScriptedLiveModel([[resumption_update("h-1"), *live_responses("Bye."), go_away()]])
    live = await make_harness(LlmAgent(name="assistant", model=model))
    queue = LiveRequestQueue()
    queue.send_content(user("hi"))
    WatchedConnection.on_go_away = queue.close

    events = await live.run(queue, run_config=RESUMING)

    assert texts(events) == ["Bye."]
    (connection,) = model.connections
    assert connection.closed
    assert queue._ended
