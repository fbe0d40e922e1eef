"""Gemini's live connection against a fake Gemini Live server on 127.0.0.1."""

from __future__ import annotations

import base64

import pytest

pytest.importorskip("google.genai")
pytest.importorskip("cryptography")

from gemini_live_server import FakeGeminiLive, fake_gemini_live
from google import genai
from google.genai import types as genai_types
from live_support import make_harness, texts, user

from pyadk import types
from pyadk.agents import LiveRequestQueue, LlmAgent, RunConfig
from pyadk.errors import ModelError, ModelOverloadedError
from pyadk.models import Gemini

MODEL = "gemini-live-test"


def gemini(server: FakeGeminiLive) -> Gemini:
    client = genai.Client(
        api_key="test-key",
        http_options=genai_types.HttpOptions(
            base_url=server.base_url, async_client_args={"ssl": server.client_ssl}
        ),
    )
    return Gemini(model=MODEL, client=client)


def text(*chunks: str) -> list[dict]:
    return [{"serverContent": {"modelTurn": {"parts": [{"text": c}]}}} for c in chunks]


DONE = {"serverContent": {"turnComplete": True}}


async def test_text_turns_stream_partial_chunks_then_the_whole_text() -> None:
    fake = FakeGeminiLive([[*text("Hel", "lo!"), DONE]])
    async with fake_gemini_live(fake):
        agent = LlmAgent(name="assistant", model=gemini(fake), instruction="Be brief.")
        live = await make_harness(agent)
        queue = LiveRequestQueue()
        queue.send_content(user("hi"))

        events = await live.run(queue, close_after_turns=1)

    assert texts(events, partial=True) == ["Hel", "lo!"]
    assert texts(events) == ["Hello!"]
    assert events[-1].turn_complete
    (setup,) = fake.setups()
    assert setup["model"] == f"models/{MODEL}"
    assert setup["generationConfig"]["responseModalities"] == ["TEXT"]
    assert "Be brief." in json_text(setup["systemInstruction"])
    assert fake.sent("clientContent") == [
        {"turns": [{"role": "user", "parts": [{"text": "hi"}]}], "turnComplete": True}
    ]
    assert "BidiGenerateContent" in fake.paths[0]


async def test_a_tool_call_is_executed_and_answered_with_a_tool_response() -> None:
    def get_weather(city: str) -> dict[str, str]:
        """The weather in a city."""
        return {"forecast": f"sunny in {city}"}

    fake = FakeGeminiLive(
        [
            [
                {
                    "toolCall": {
                        "functionCalls": [
                            {"id": "fc-1", "name": "get_weather", "args": {"city": "Paris"}}
                        ]
                    }
                },
                DONE,
            ],
            [*text("Sunny in Paris."), DONE],
        ]
    )
    async with fake_gemini_live(fake):
        agent = LlmAgent(name="assistant", model=gemini(fake), tools=[get_weather])
        live = await make_harness(agent)
        queue = LiveRequestQueue()
        queue.send_content(user("weather in Paris?"))

        events = await live.run(queue, close_after_turns=2)

    (call_event,) = [e for e in events if e.get_function_calls()]
    assert call_event.get_function_calls()[0].id == "fc-1"
    assert fake.sent("toolResponse") == [
        {
            "functionResponses": [
                {"id": "fc-1", "name": "get_weather", "response": {"forecast": "sunny in Paris"}}
            ]
        }
    ]
    assert texts(events)[-1] == "Sunny in Paris."
    declarations = fake.setups()[0]["tools"][0]["functionDeclarations"]
    assert [d["name"] for d in declarations] == ["get_weather"]


async def test_audio_goes_as_realtime_input_and_transcriptions_come_back() -> None:
    fake = FakeGeminiLive(
        [
            [
                {"serverContent": {"inputTranscription": {"text": "what time"}}},
                {"serverContent": {"inputTranscription": {"text": " is it", "finished": True}}},
                {"serverContent": {"outputTranscription": {"text": "Noon."}}},
                {
                    "serverContent": {
                        "modelTurn": {
                            "parts": [
                                {"inlineData": {"mimeType": "audio/pcm;rate=24000", "data": "AAE="}}
                            ]
                        }
                    }
                },
                DONE,
            ]
        ]
    )
    async with fake_gemini_live(fake):
        agent = LlmAgent(name="assistant", model=gemini(fake))
        live = await make_harness(agent)
        queue = LiveRequestQueue()
        queue.send_activity_start()
        queue.send_realtime(types.Blob(mime_type="audio/pcm;rate=16000", data=b"\x01\x02"))
        queue.send_activity_end()

        events = await live.run(
            queue, close_after_turns=1, run_config=RunConfig()
        )  # AUDIO by default

    realtime = fake.sent("realtimeInput")
    assert realtime[0] == {"activityStart": {}}
    assert realtime[1]["audio"]["mimeType"] == "audio/pcm;rate=16000"
    assert base64.b64decode(realtime[1]["audio"]["data"]) == b"\x01\x02"
    assert realtime[2] == {"activityEnd": {}}
    assert fake.setups()[0]["generationConfig"]["responseModalities"] == ["AUDIO"]
    assert "inputAudioTranscription" in fake.setups()[0]
    heard = [
        (e.author, e.partial, e.input_transcription.text) for e in events if e.input_transcription
    ]
    assert heard == [
        ("user", True, "what time"),
        ("user", True, " is it"),
        ("user", False, "what time is it"),
    ]
    said = [(e.partial, e.output_transcription.text) for e in events if e.output_transcription]
    assert said == [(True, "Noon."), (False, "Noon.")]
    audio = [e for e in events if e.content and e.content.parts[0].inline_data]
    assert audio[0].content.parts[0].inline_data.data == b"\x00\x01"  # type: ignore[union-attr]
    stored = await live.stored()
    assert not any(e.content and e.content.parts[0].inline_data for e in stored)
    assert [e.input_transcription.text for e in stored if e.input_transcription] == [
        "what time is it"
    ]


async def test_the_history_is_sent_as_client_content_without_ending_the_turn() -> None:
    fake = FakeGeminiLive([[*text("Hi Ada."), DONE]])
    async with fake_gemini_live(fake):
        agent = LlmAgent(name="assistant", model=gemini(fake))
        live = await make_harness(agent)
        first = LiveRequestQueue()
        first.send_content(user("I am Ada"))
        await live.run(first, close_after_turns=1)
        second = LiveRequestQueue()
        second.close()
        await live.run(second)

    history = fake.sent("clientContent")[-1]
    assert history["turnComplete"] is False
    assert [t["role"] for t in history["turns"]] == ["user", "model"]


async def test_a_refused_setup_fails_the_run_with_a_clear_error() -> None:
    fake = FakeGeminiLive(refuse_setup=(1008, "API key not valid"))
    async with fake_gemini_live(fake):
        live = await make_harness(LlmAgent(name="assistant", model=gemini(fake)))
        queue = LiveRequestQueue()
        queue.send_content(user("hi"))

        with pytest.raises(ModelError, match=r"refused the live connection.*API key not valid"):
            await live.run(queue)


async def test_an_unreachable_server_is_reported_as_unavailable() -> None:
    fake = FakeGeminiLive()
    async with fake_gemini_live(fake):
        port = fake.port
    fake.port = port  # the server is gone
    live = await make_harness(LlmAgent(name="assistant", model=gemini(fake)))
    queue = LiveRequestQueue()

    with pytest.raises(ModelOverloadedError, match="could not be reached"):
        await live.run(queue)


async def test_a_session_closed_by_the_server_with_an_error_ends_the_run() -> None:
    fake = FakeGeminiLive([[*text("One."), DONE]], close_after_turns=(1, 1011, "internal error"))
    async with fake_gemini_live(fake):
        live = await make_harness(LlmAgent(name="assistant", model=gemini(fake)))
        queue = LiveRequestQueue()
        queue.send_content(user("one"))

        async def again(event) -> None:
            if event.turn_complete:
                queue.send_content(user("two"))

        with pytest.raises(ConnectionError, match="ended with code 1011: internal error"):
            await live.run(queue, on_event=again)


def json_text(value: object) -> str:
    import json

    return json.dumps(value)
