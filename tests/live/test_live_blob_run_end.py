"""save_live_blob: the audio still cached when a live session ends is saved too."""

from __future__ import annotations

from test_live_blob_saving import (
    IN,
    OUT,
    SAVE,
    artifact,
    audio,
    file_data,
    harness,
    keys,
    references,
    speak,
)

from pyadk import types
from pyadk.agents import LiveRequestQueue
from pyadk.events.event import Event
from pyadk.models.llm_response import LlmResponse
from pyadk.testing import ScriptedLiveModel, ServerClose


async def test_audio_cached_when_the_client_closes_is_saved_as_the_run_ends() -> None:
    model = ScriptedLiveModel([[audio(b"hel"), audio(b"lo")]])  # no turn_complete
    live = await harness(model)
    queue = LiveRequestQueue()
    speak(queue, b"\x01", b"\x02")
    heard = 0

    def close_after_the_audio(event: Event) -> None:
        nonlocal heard
        if event.content is not None and any(p.inline_data for p in event.content.parts or []):
            heard += 1
            if heard == 2:
                queue.close()

    events = await live.run(queue, run_config=SAVE, on_event=close_after_the_audio)

    user_ref, model_ref = references(events)
    assert events[-2:] == [user_ref, model_ref]  # the run's last events
    assert (user_ref.author, model_ref.author) == ("user", "voice")
    assert file_data(user_ref).mime_type == IN and file_data(model_ref).mime_type == OUT
    said = await artifact(live, file_data(model_ref).file_uri or "")
    spoken = await artifact(live, file_data(user_ref).file_uri or "")
    assert said.inline_data == types.Blob(mime_type=OUT, data=b"hello")
    assert spoken.inline_data == types.Blob(mime_type=IN, data=b"\x01\x02")
    assert len(await keys(live)) == 2
    stored = await live.stored()
    assert [e.id for e in references(stored)] == [user_ref.id, model_ref.id]


async def test_audio_cached_when_the_connection_ends_is_saved() -> None:
    model = ScriptedLiveModel([[audio(b"bye"), ServerClose()]])
    live = await harness(model)
    queue = LiveRequestQueue()
    speak(queue, b"\x07")

    events = await live.run(queue, run_config=SAVE)  # ends with the connection

    refs = references(events)
    assert [(e.author, file_data(e).mime_type) for e in refs] == [("user", IN), ("voice", OUT)]
    saved = [(await artifact(live, file_data(e).file_uri or "")).inline_data for e in refs]
    assert [blob.data for blob in saved if blob is not None] == [b"\x07", b"bye"]


async def test_a_turn_already_saved_leaves_nothing_for_the_run_end() -> None:
    model = ScriptedLiveModel([[audio(b"hi"), LlmResponse(turn_complete=True)]])
    live = await harness(model)
    queue = LiveRequestQueue()
    speak(queue, b"\x01")

    events = await live.run(queue, close_after_turns=1, run_config=SAVE)

    assert len(references(events)) == 2  # the turn's, before its turn_complete
    assert events[-1].turn_complete
    assert len(await keys(live)) == 2
