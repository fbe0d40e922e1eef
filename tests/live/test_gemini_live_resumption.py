"""Gemini Live session resumption against the fake Gemini Live server on 127.0.0.1."""

from __future__ import annotations

import asyncio

import pytest

pytest.importorskip("google.genai")
pytest.importorskip("cryptography")

from gemini_live_server import FakeGeminiLive, fake_gemini_live
from live_support import TEXT, make_harness, texts, user
from test_gemini_live import DONE, gemini, text

from pyadk import types
from pyadk.agents import LiveRequestQueue, LlmAgent

RESUMING = TEXT.model_copy(update={"session_resumption": types.SessionResumptionConfig()})


def resumption(handle: str) -> dict:
    return {"sessionResumptionUpdate": {"newHandle": handle, "resumable": True}}


async def second_connection(fake: FakeGeminiLive) -> None:
    while len(fake.setups()) < 2:
        await asyncio.sleep(0.01)


async def test_go_away_after_a_resumption_update_reconnects_with_the_handle() -> None:
    fake = FakeGeminiLive(
        [
            [*text("One."), DONE, resumption("handle-1"), {"goAway": {"timeLeft": "10s"}}],
            [*text("Two."), DONE],
        ]
    )
    async with fake_gemini_live(fake):
        live = await make_harness(LlmAgent(name="assistant", model=gemini(fake)))
        queue = LiveRequestQueue()
        queue.send_content(user("one"))

        async def talk() -> None:
            await second_connection(fake)
            queue.send_content(user("two"))

        follow_up = asyncio.create_task(talk())
        events = await live.run(queue, close_after_turns=2, run_config=RESUMING)
        await follow_up

    assert texts(events) == ["One.", "Two."]
    first, second = fake.setups()
    assert first["sessionResumption"] == {}
    assert second["sessionResumption"] == {"handle": "handle-1"}
    updates = [e.live_session_resumption_update for e in events]
    assert [u.new_handle for u in updates if u is not None] == ["handle-1"]
    assert fake.sent("clientContent")[-1]["turns"][0]["parts"] == [{"text": "two"}]


async def test_a_server_error_close_with_a_handle_reconnects() -> None:
    fake = FakeGeminiLive(
        [[*text("One."), DONE, resumption("handle-1")], [*text("Two."), DONE]],
        close_after_turns=(1, 1011, "internal error"),
    )
    async with fake_gemini_live(fake):
        live = await make_harness(LlmAgent(name="assistant", model=gemini(fake)))
        queue = LiveRequestQueue()
        queue.send_content(user("one"))

        async def first_turn_done(event) -> None:
            if event.live_session_resumption_update is not None:
                queue.send_content(user("two"))  # the server closes instead of answering

        async def reopened() -> None:
            await second_connection(fake)
            fake.close_after_turns = None  # the new connection answers
            queue.send_content(user("two, again"))

        follow_up = asyncio.create_task(reopened())
        events = await live.run(
            queue, on_event=first_turn_done, close_after_turns=2, run_config=RESUMING
        )
        await follow_up

    assert texts(events) == ["One.", "Two."]
    assert fake.setups()[1]["sessionResumption"] == {"handle": "handle-1"}


async def test_without_session_resumption_a_go_away_does_not_reconnect() -> None:
    fake = FakeGeminiLive([[*text("One."), DONE, {"goAway": {"timeLeft": "1s"}}]])
    async with fake_gemini_live(fake):
        live = await make_harness(LlmAgent(name="assistant", model=gemini(fake)))
        queue = LiveRequestQueue()
        queue.send_content(user("one"))

        events = await live.run(queue, close_after_turns=1, run_config=TEXT)

    assert texts(events) == ["One."]
    (setup,) = fake.setups()
    assert "sessionResumption" not in setup
