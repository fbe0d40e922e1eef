"""Realtime input, transcriptions, audio output and state deltas in live runs."""

from __future__ import annotations

from live_support import make_harness, texts, user

from pyadk import types
from pyadk.agents import LiveRequest, LiveRequestQueue, LlmAgent
from pyadk.models.llm_response import LlmResponse
from pyadk.testing import ScriptedLiveModel

PCM = "audio/pcm;rate=16000"


async def test_blobs_are_forwarded_to_the_model_in_order_and_not_stored() -> None:
    model = ScriptedLiveModel(["I heard you."], reply_to_realtime=True)
    live = await make_harness(LlmAgent(name="assistant", model=model))
    queue = LiveRequestQueue()
    queue.send_realtime(types.Blob(mime_type=PCM, data=b"\x00\x01"))

    events = await live.run(queue, close_after_turns=1)

    assert texts(events) == ["I heard you."]
    (blob,) = model.connections[0].sent
    assert blob == types.Blob(mime_type=PCM, data=b"\x00\x01")
    assert [e.author for e in await live.stored()] == ["assistant", "assistant"]


async def test_many_audio_chunks_reach_the_model_and_activity_end_asks_for_the_answer() -> None:
    model = ScriptedLiveModel(["Got it."])
    live = await make_harness(LlmAgent(name="assistant", model=model))
    queue = LiveRequestQueue()
    queue.send_activity_start()
    for chunk in (b"a", b"b", b"c"):
        queue.send_realtime(types.Blob(mime_type=PCM, data=chunk))
    queue.send_activity_end()

    events = await live.run(queue, close_after_turns=1)

    sent = model.connections[0].sent
    assert isinstance(sent[0], types.ActivityStart)
    assert [b.data for b in sent[1:4] if isinstance(b, types.Blob)] == [b"a", b"b", b"c"]
    assert isinstance(sent[4], types.ActivityEnd)
    assert texts(events) == ["Got it."]


async def test_audio_stream_end_is_forwarded() -> None:
    model = ScriptedLiveModel(["Flushed."])
    live = await make_harness(LlmAgent(name="assistant", model=model))
    queue = LiveRequestQueue()
    queue.send_realtime(types.Blob(mime_type=PCM, data=b"x"))
    queue.send_audio_stream_end()

    await live.run(queue, close_after_turns=1)

    assert model.connections[0].sent[-1] == types.LiveClientRealtimeInput(audio_stream_end=True)


async def test_transcriptions_are_yielded_and_the_finished_ones_stored() -> None:
    def transcript(text: str, *, finished: bool, of_input: bool) -> LlmResponse:
        value = types.Transcription(text=text, finished=finished)
        if of_input:
            return LlmResponse(input_transcription=value, partial=not finished)
        return LlmResponse(output_transcription=value, partial=not finished)

    model = ScriptedLiveModel(
        [
            [
                transcript("what time", finished=False, of_input=True),
                transcript("what time is it", finished=True, of_input=True),
                transcript("It is", finished=False, of_input=False),
                transcript("It is noon.", finished=True, of_input=False),
                LlmResponse(turn_complete=True),
            ]
        ],
        reply_to_realtime=True,
    )
    live = await make_harness(LlmAgent(name="assistant", model=model))
    queue = LiveRequestQueue()
    queue.send_realtime(types.Blob(mime_type=PCM, data=b"speech"))

    events = await live.run(queue, close_after_turns=1)

    seen = [
        (
            e.author,
            bool(e.partial),
            (e.input_transcription or e.output_transcription or types.Transcription()).text,
        )
        for e in events[:4]
    ]
    assert seen == [
        ("user", True, "what time"),
        ("user", False, "what time is it"),
        ("assistant", True, "It is"),
        ("assistant", False, "It is noon."),
    ]
    stored = await live.stored()
    assert [(e.author, e.input_transcription, e.output_transcription) for e in stored[:2]] == [
        ("user", types.Transcription(text="what time is it", finished=True), None),
        ("assistant", None, types.Transcription(text="It is noon.", finished=True)),
    ]
    assert stored[2].turn_complete
    # Transcriptions round-trip with google-genai's camelCase JSON.
    data = stored[0].to_json_dict()
    assert data["inputTranscription"] == {"text": "what time is it", "finished": True}


async def test_audio_answers_are_yielded_but_not_stored() -> None:
    audio = types.Content(
        role="model",
        parts=[types.Part(inline_data=types.Blob(mime_type="audio/pcm;rate=24000", data=b"\x07"))],
    )
    model = ScriptedLiveModel([[LlmResponse(content=audio), LlmResponse(turn_complete=True)]])
    live = await make_harness(LlmAgent(name="assistant", model=model))
    queue = LiveRequestQueue()
    queue.send_content(user("say hi"))

    events = await live.run(queue, close_after_turns=1)

    assert events[0].content == audio
    stored = await live.stored()
    assert [(e.author, e.content is not None, e.turn_complete) for e in stored] == [
        ("user", True, None),
        ("assistant", False, True),
    ]


async def test_a_state_delta_is_applied_with_or_without_content() -> None:
    model = ScriptedLiveModel(["Noted."])
    live = await make_harness(LlmAgent(name="assistant", model=model))
    queue = LiveRequestQueue()
    queue.send(LiveRequest(state_delta={"mood": "happy"}))
    queue.send(LiveRequest(content=user("I am happy"), state_delta={"level": 2}))

    await live.run(queue, close_after_turns=1)

    assert (await live.state()) == {"mood": "happy", "level": 2}
    stored = await live.stored()
    assert [(e.author, e.text, e.actions.state_delta) for e in stored[:2]] == [
        ("user", None, {"mood": "happy"}),
        ("user", "I am happy", {"level": 2}),
    ]


async def test_partial_content_goes_to_the_model_without_a_turn_or_a_stored_event() -> None:
    model = ScriptedLiveModel(["Whole sentence heard."])
    live = await make_harness(LlmAgent(name="assistant", model=model))
    queue = LiveRequestQueue()
    queue.send_content(user("The weather"), partial=True)
    queue.send_content(user("in Paris?"))

    events = await live.run(queue, close_after_turns=1)

    connection = model.connections[0]
    assert [c.parts[0].text for c in connection.partial_contents] == ["The weather"]
    assert len(connection.sent) == 2
    assert texts(events) == ["Whole sentence heard."]
    assert [e.text for e in await live.stored() if e.author == "user"] == ["in Paris?"]


def test_live_request_json_accepts_base64_blobs_and_camel_case_content() -> None:
    request = LiveRequest.model_validate_json(
        '{"blob": {"mimeType": "audio/pcm", "data": "AAE="}, "close": false}'
    )
    assert request.blob == types.Blob(mime_type="audio/pcm", data=b"\x00\x01")
    request = LiveRequest.model_validate_json(
        '{"content": {"role": "user", "parts": [{"text": "hi"}]}}'
    )
    assert request.content == user("hi")


async def test_the_queue_hands_requests_over_in_order_and_remembers_close() -> None:
    queue = LiveRequestQueue()
    queue.send_content(user("a"))
    queue.send_realtime(types.Blob(mime_type=PCM, data=b"b"))
    queue.send_activity_start()
    queue.send_activity_end()
    assert not queue.closed
    queue.close()
    assert queue.closed

    got = [await queue.get() for _ in range(5)]

    assert got[0].content == user("a")
    assert got[1].blob is not None and got[1].blob.data == b"b"
    assert got[2].activity_start == types.ActivityStart()
    assert got[3].activity_end == types.ActivityEnd()
    assert got[4].close


async def test_transcribed_speech_is_part_of_the_next_connection_history() -> None:
    said = types.Transcription(text="Call me Ada.", finished=True)
    answered = types.Transcription(text="Hello Ada.", finished=True)
    model = ScriptedLiveModel(
        [
            [
                LlmResponse(input_transcription=said),
                LlmResponse(output_transcription=answered),
                LlmResponse(turn_complete=True),
            ]
        ],
        reply_to_realtime=True,
    )
    live = await make_harness(LlmAgent(name="assistant", model=model))
    first = LiveRequestQueue()
    first.send_realtime(types.Blob(mime_type=PCM, data=b"speech"))
    await live.run(first, close_after_turns=1)

    second = LiveRequestQueue()
    second.close()
    await live.run(second)

    history = model.connections[1].history or []
    assert [(c.role, c.parts[0].text) for c in history] == [
        ("user", "Call me Ada."),
        ("model", "Hello Ada."),
    ]
    # Stored as google-adk stores them: transcriptions, without content.
    assert all(e.content is None for e in await live.stored())


async def test_the_queue_accepts_google_genai_content_and_blobs() -> None:
    genai_types = __import__("pytest").importorskip("google.genai.types")
    model = ScriptedLiveModel(["Heard both."])
    live = await make_harness(LlmAgent(name="assistant", model=model))
    queue = LiveRequestQueue()
    queue.send_realtime(genai_types.Blob(mime_type=PCM, data=b"\x01"))
    queue.send_content(genai_types.Content(role="user", parts=[genai_types.Part(text="hi")]))

    events = await live.run(queue, close_after_turns=1)

    assert texts(events) == ["Heard both."]
    assert model.connections[0].sent == [types.Blob(mime_type=PCM, data=b"\x01"), user("hi")]
