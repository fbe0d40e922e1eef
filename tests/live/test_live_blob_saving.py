"""RunConfig.save_live_blob: a live run's audio saved as artifacts, referenced by events."""

from __future__ import annotations

import logging
import re
from typing import Any

import pytest
from live_support import LiveHarness, make_harness

from pyadk import types
from pyadk.agents import LiveRequestQueue, LlmAgent, RunConfig
from pyadk.artifacts.in_memory_artifact_service import InMemoryArtifactService
from pyadk.events.event import Event
from pyadk.flows.live_blob_saver import is_live_blob_reference
from pyadk.models.gemini_llm_connection import _without_media
from pyadk.models.llm_response import LlmResponse
from pyadk.runners import InMemoryRunner
from pyadk.testing import ScriptedLiveModel

IN = "audio/pcm;rate=16000"
OUT = "audio/pcm;rate=24000"
SAVE = RunConfig(save_live_blob=True)
NAME = re.compile(r"adk_live_audio_storage_(input|output)_audio_\d{13}\.pcm")


def audio(data: bytes, mime_type: str = OUT) -> LlmResponse:
    """The model's inline audio, as a live connection sends it."""
    part = types.Part(inline_data=types.Blob(mime_type=mime_type, data=data))
    return LlmResponse(content=types.Content(role="model", parts=[part]))


async def harness(model: ScriptedLiveModel) -> LiveHarness:
    runner = InMemoryRunner(LlmAgent(name="voice", model=model), app_name="live_app")
    session = await runner.session_service.create_session(app_name="live_app", user_id="u")
    return LiveHarness(runner, session.id)


def speak(queue: LiveRequestQueue, *chunks: bytes, mime_type: str = IN) -> None:
    queue.send_activity_start()
    for chunk in chunks:
        queue.send_realtime(types.Blob(mime_type=mime_type, data=chunk))
    queue.send_activity_end()


def references(events: list[Event]) -> list[Event]:
    return [
        e
        for e in events
        if e.content is not None and any(p.file_data for p in e.content.parts or [])
    ]


def file_data(event: Event) -> types.FileData:
    assert event.content is not None and event.content.parts
    (part,) = event.content.parts
    assert part.file_data is not None
    return part.file_data


async def artifact(live: LiveHarness, uri: str) -> types.Part:
    """The saved artifact that ``uri`` (artifact://app/user/session/_adk_live/name#v) names."""
    match = re.fullmatch(r"artifact://([^/]+)/([^/]+)/([^/]+)/_adk_live/([^#]+)#(\d+)", uri)
    assert match is not None, uri
    app, user_id, session_id, filename, version = match.groups()
    assert (app, user_id, session_id) == ("live_app", "u", live.session_id)
    service = live.runner.artifact_service
    assert service is not None
    part = await service.load_artifact(
        app_name=app,
        user_id=user_id,
        session_id=session_id,
        filename=filename,
        version=int(version),
    )
    assert part is not None
    return part


async def keys(live: LiveHarness) -> list[str]:
    service = live.runner.artifact_service
    assert service is not None
    return await service.list_artifact_keys(
        app_name="live_app", user_id="u", session_id=live.session_id
    )


async def test_a_turns_audio_both_ways_is_saved_and_referenced_before_turn_complete() -> None:
    model = ScriptedLiveModel([[audio(b"hel"), audio(b"lo!"), LlmResponse(turn_complete=True)]])
    live = await harness(model)
    queue = LiveRequestQueue()
    speak(queue, b"\x01\x02", b"\x03", b"\x04\x05")

    events = await live.run(queue, close_after_turns=1, run_config=SAVE)

    user_ref, model_ref = references(events)
    assert (user_ref.author, user_ref.content and user_ref.content.role) == ("user", "user")
    assert (model_ref.author, model_ref.content and model_ref.content.role) == ("voice", "model")
    assert events.index(model_ref) == events.index(user_ref) + 1
    assert events[events.index(model_ref) + 1].turn_complete
    assert file_data(user_ref).mime_type == IN and file_data(model_ref).mime_type == OUT
    heard = await artifact(live, file_data(user_ref).file_uri or "")
    said = await artifact(live, file_data(model_ref).file_uri or "")
    assert heard.inline_data == types.Blob(mime_type=IN, data=b"\x01\x02\x03\x04\x05")
    assert said.inline_data == types.Blob(mime_type=OUT, data=b"hello!")
    names = sorted(await keys(live))
    assert len(names) == 2 and all(NAME.fullmatch(name) for name in names)
    assert [n.split("_")[4] for n in names] == ["input", "output"]
    assert (file_data(user_ref).file_uri or "").endswith("#0")
    assert user_ref.invocation_id == model_ref.invocation_id == events[-1].invocation_id

    stored = await live.stored()
    stored_refs = references(stored)
    assert [e.id for e in stored_refs] == [user_ref.id, model_ref.id]
    assert not any(p.inline_data for e in stored if e.content for p in e.content.parts or [])


async def test_interrupted_saves_the_models_audio_and_the_users_waits_for_turn_complete() -> None:
    model = ScriptedLiveModel(
        [
            [audio(b"I was say"), LlmResponse(interrupted=True)],
            [audio(b"Yes?"), LlmResponse(turn_complete=True)],
        ]
    )
    live = await harness(model)
    queue = LiveRequestQueue()
    speak(queue, b"first")

    def second_turn(event: Event) -> None:
        if event.interrupted:
            speak(queue, b"second")

    events = await live.run(queue, close_after_turns=1, run_config=SAVE, on_event=second_turn)

    refs = references(events)
    assert [(e.author, file_data(e).mime_type) for e in refs] == [
        ("voice", OUT),
        ("user", IN),
        ("voice", OUT),
    ]
    interrupted = next(e for e in events if e.interrupted)
    assert events.index(refs[0]) < events.index(interrupted) < events.index(refs[1])
    saved = [(await artifact(live, file_data(e).file_uri or "")).inline_data for e in refs]
    data = [blob.data for blob in saved if blob is not None]
    assert data == [b"I was say", b"firstsecond", b"Yes?"]


async def test_nothing_is_saved_without_the_flag() -> None:
    model = ScriptedLiveModel([[audio(b"hi"), LlmResponse(turn_complete=True)]])
    live = await harness(model)
    queue = LiveRequestQueue()
    speak(queue, b"hello")

    events = await live.run(queue, close_after_turns=1, run_config=RunConfig())

    assert references(events) == [] and references(await live.stored()) == []
    assert await keys(live) == []
    assert any(p.inline_data for e in events if e.content for p in e.content.parts or [])


async def test_only_audio_is_saved_video_frames_are_not() -> None:
    model = ScriptedLiveModel(
        [[audio(b"png", mime_type="image/png"), LlmResponse(turn_complete=True)]]
    )
    live = await harness(model)
    queue = LiveRequestQueue()
    speak(queue, b"frame", mime_type="video/mp4")

    events = await live.run(queue, close_after_turns=1, run_config=SAVE)

    assert references(events) == [] and await keys(live) == []


async def test_a_run_without_an_artifact_service_is_refused_at_start() -> None:
    model = ScriptedLiveModel(["never"])
    live = await make_harness(LlmAgent(name="voice", model=model))
    assert live.runner.artifact_service is None

    with pytest.raises(ValueError, match=r"RunConfig\.save_live_blob .* no artifact_service"):
        await anext(
            live.runner.run_live(
                user_id="u",
                session_id=live.session_id,
                live_request_queue=LiveRequestQueue(),
                run_config=SAVE,
            )
        )
    assert model.connections == []


class _FailingArtifacts(InMemoryArtifactService):
    async def save_artifact(self, **kwargs: Any) -> int:
        raise OSError("disk full")


async def test_a_failing_artifact_service_is_logged_and_the_run_goes_on(
    caplog: pytest.LogCaptureFixture,
) -> None:
    model = ScriptedLiveModel([[audio(b"hi"), LlmResponse(turn_complete=True)]])
    live = await harness(model)
    live.runner.artifact_service = _FailingArtifacts()
    queue = LiveRequestQueue()
    speak(queue, b"hello")

    with caplog.at_level(logging.ERROR, logger="pyadk.flows.live_blob_saver"):
        events = await live.run(queue, close_after_turns=1, run_config=SAVE)

    assert references(events) == [] and events[-1].turn_complete
    assert "disk full" in caplog.text and "input_audio" in caplog.text


async def test_saved_references_are_left_out_of_a_live_connections_history() -> None:
    model = ScriptedLiveModel([[audio(b"hi"), LlmResponse(turn_complete=True)]])
    live = await harness(model)
    queue = LiveRequestQueue()
    speak(queue, b"hello")
    events = await live.run(queue, close_after_turns=1, run_config=SAVE)
    ref = references(events)[0]
    assert ref.content is not None
    (part,) = ref.content.parts or []
    assert is_live_blob_reference(part)

    # The Gemini live connection's history drops them (the model cannot read them).
    text = types.Part(text="kept")
    assert _without_media(ref.content) is None
    mixed = types.Content(role="user", parts=[part, text])
    assert _without_media(mixed) == types.Content(role="user", parts=[text])
