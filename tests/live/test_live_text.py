"""Live runs with text: what the caller sees, what the model is sent, what is stored."""

from __future__ import annotations

from live_support import TEXT, make_harness, texts, user

from pyadk import types
from pyadk.agents import LiveRequestQueue, LlmAgent, RunConfig
from pyadk.models.llm_response import LlmResponse
from pyadk.testing import ScriptedLiveModel, Stream


async def test_text_in_text_out_until_the_queue_closes() -> None:
    model = ScriptedLiveModel(["Hello!", "Goodbye."])
    live = await make_harness(LlmAgent(name="assistant", model=model))
    queue = LiveRequestQueue()
    queue.send_content(user("hi"))

    async def follow_up(event) -> None:
        if event.turn_complete and model.reply_count == 1:
            queue.send_content(user("bye"))

    events = await live.run(queue, on_event=follow_up, close_after_turns=2)

    assert texts(events) == ["Hello!", "Goodbye."]
    assert [e.turn_complete for e in events] == [None, True, None, True]
    assert {e.author for e in events} == {"assistant"}
    assert len({e.invocation_id for e in events}) == 1
    # One connection, sent each user turn as it came.
    (connection,) = model.connections
    assert [c.parts[0].text for c in connection.sent] == ["hi", "bye"]
    assert connection.closed


async def test_streamed_text_arrives_as_partial_events_then_whole() -> None:
    model = ScriptedLiveModel([Stream(["Hel", "lo", " there"])])
    live = await make_harness(LlmAgent(name="assistant", model=model))
    queue = LiveRequestQueue()
    queue.send_content(user("hi"))

    events = await live.run(queue, close_after_turns=1)

    assert texts(events, partial=True) == ["Hel", "lo", " there"]
    assert texts(events) == ["Hello there"]
    assert events[-1].turn_complete


async def test_stored_events_are_the_user_content_and_non_partial_model_events() -> None:
    model = ScriptedLiveModel([Stream(["Hel", "lo"])])
    live = await make_harness(LlmAgent(name="assistant", model=model))
    queue = LiveRequestQueue()
    queue.send_content(types.Content(parts=[types.Part(text="hi")]))  # no role: user

    events = await live.run(queue, close_after_turns=1)

    stored = await live.stored()
    assert [(e.author, e.content.role if e.content else None) for e in stored] == [
        ("user", "user"),
        ("assistant", "model"),
        ("assistant", None),
    ]
    assert stored[0].content is not None and stored[0].content.parts[0].text == "hi"
    assert stored[1].text == "Hello"
    assert stored[2].turn_complete
    # What was yielded and not partial is what was stored (same events).
    assert [e.id for e in events if not e.partial] == [e.id for e in stored[1:]]


async def test_the_session_history_is_sent_when_the_connection_opens() -> None:
    model = ScriptedLiveModel(["Welcome back."])
    agent = LlmAgent(name="assistant", model=model, instruction="Be brief.")
    live = await make_harness(agent)
    first = LiveRequestQueue()
    first.send_content(user("my name is Ada"))
    await live.run(first, close_after_turns=1)

    second = LiveRequestQueue()
    second.close()
    await live.run(second)

    history = model.connections[1].history
    assert history is not None
    assert [(c.role, c.parts[0].text) for c in history] == [
        ("user", "my name is Ada"),
        ("model", "Welcome back."),
    ]
    # The model waits for the user: a history ending with its own turn plays no reply.
    assert model.reply_count == 1


async def test_a_history_ending_with_the_user_turn_is_answered() -> None:
    model = ScriptedLiveModel(["Sure."])
    agent = LlmAgent(name="assistant", model=model)
    live = await make_harness(agent)
    await live.runner.session_service.append_event(
        await live.runner.session_service.get_session(
            app_name="live_app", user_id="u", session_id=live.session_id
        ),
        _user_event("can you help?"),
    )
    queue = LiveRequestQueue()

    events = await live.run(queue, close_after_turns=1)

    assert texts(events) == ["Sure."]


async def test_the_connection_gets_the_instruction_tools_and_live_settings() -> None:
    model = ScriptedLiveModel()

    def lookup(term: str) -> str:
        """Looks a term up."""
        return term

    agent = LlmAgent(name="assistant", model=model, instruction="Be brief.", tools=[lookup])
    live = await make_harness(agent)
    queue = LiveRequestQueue()
    queue.close()
    speech = types.SpeechConfig(
        voice_config=types.VoiceConfig(
            prebuilt_voice_config=types.PrebuiltVoiceConfig(voice_name="Kore")
        ),
        language_code="en-US",
    )
    config = RunConfig(
        response_modalities=[types.Modality.AUDIO],
        speech_config=speech,
        input_audio_transcription=None,
        proactivity=types.ProactivityConfig(proactive_audio=True),
    )

    await live.run(queue, run_config=config)

    (request,) = model.requests
    live_config = request.live_connect_config
    assert live_config.response_modalities == [types.Modality.AUDIO]
    assert live_config.speech_config == speech
    assert live_config.input_audio_transcription is None
    assert live_config.output_audio_transcription == types.AudioTranscriptionConfig()
    assert live_config.proactivity == types.ProactivityConfig(proactive_audio=True)
    assert "Be brief." in str(live_config.system_instruction)
    assert live_config.tools is not None
    assert [d.name for d in live_config.tools[0].function_declarations or []] == ["lookup"]
    assert request.model == "scripted-live"


async def test_response_modalities_default_to_audio_on_a_copy_of_the_run_config() -> None:
    model = ScriptedLiveModel()
    live = await make_harness(LlmAgent(name="assistant", model=model))
    config = RunConfig()
    queue = LiveRequestQueue()
    queue.close()

    await live.run(queue, run_config=config)

    assert model.requests[0].live_connect_config.response_modalities == [types.Modality.AUDIO]
    assert config.response_modalities is None


async def test_output_key_stores_the_whole_text_answer() -> None:
    model = ScriptedLiveModel([Stream(["Par", "is"])])
    agent = LlmAgent(name="assistant", model=model, output_key="capital")
    live = await make_harness(agent)
    queue = LiveRequestQueue()
    queue.send_content(user("capital of France?"))

    await live.run(queue, close_after_turns=1)

    assert (await live.state())["capital"] == "Paris"


async def test_interrupted_and_usage_events_reach_the_caller_and_the_session() -> None:
    usage = types.UsageMetadata(prompt_token_count=3, total_token_count=5)
    model = ScriptedLiveModel(
        [
            [
                LlmResponse(content=_model("Let me")),
                LlmResponse(interrupted=True),
                LlmResponse(usage_metadata=usage),
                LlmResponse(turn_complete=True),
            ]
        ]
    )
    live = await make_harness(LlmAgent(name="assistant", model=model))
    queue = LiveRequestQueue()
    queue.send_content(user("tell me a story"))

    events = await live.run(queue, close_after_turns=1)

    assert [bool(e.interrupted) for e in events] == [False, True, False, False]
    assert events[2].usage_metadata == usage
    stored = await live.stored()
    assert [bool(e.interrupted) for e in stored[1:]] == [False, True, False, False]


async def test_a_run_config_default_is_text_free_of_live_fields() -> None:
    # Live fields get google-adk's defaults (transcription on, audio answers) in live
    # runs only: an ordinary run does not build them.
    config = RunConfig()
    assert config.response_modalities is None
    assert config.input_audio_transcription is None
    assert config.output_audio_transcription is None
    live = config.for_live()
    assert live.response_modalities == [types.Modality.AUDIO]
    assert live.input_audio_transcription == types.AudioTranscriptionConfig()
    assert live.output_audio_transcription == types.AudioTranscriptionConfig()
    assert config.input_audio_transcription is None  # for_live makes a copy
    off = RunConfig(input_audio_transcription=None).for_live()  # explicitly off stays off
    assert off.input_audio_transcription is None
    assert off.output_audio_transcription == types.AudioTranscriptionConfig()
    assert RunConfig(response_modalities=["TEXT"]).response_modalities == [types.Modality.TEXT]
    assert TEXT.response_modalities == [types.Modality.TEXT]


def _model(text: str) -> types.Content:
    return types.Content(role="model", parts=[types.Part(text=text)])


def _user_event(text: str):
    from pyadk.events.event import Event

    return Event(author="user", content=user(text))


async def test_a_live_run_on_a_sqlite_session_store_keeps_every_event(tmp_path) -> None:
    from pyadk.runners import Runner
    from pyadk.sessions import SqliteSessionService

    def note(text: str) -> str:
        """Takes a note."""
        return "saved"

    from pyadk.testing import function_call

    model = ScriptedLiveModel([Stream(["O", "k"]), function_call("note", {"text": "x"}), "Done."])
    path = tmp_path / "live.db"
    service = SqliteSessionService(str(path))
    runner = Runner(
        app_name="live_app",
        agent=LlmAgent(name="assistant", model=model, tools=[note]),
        session_service=service,
    )
    session = await service.create_session(app_name="live_app", user_id="u")
    queue = LiveRequestQueue()
    queue.send_content(user("one"))
    turns = 0
    async for event in runner.run_live(
        user_id="u", session_id=session.id, live_request_queue=queue, run_config=TEXT
    ):
        if event.turn_complete:
            turns += 1
            if turns == 1:
                queue.send_content(user("note x"))
            if turns == 3:
                queue.close()
    await service.close()

    reopened = SqliteSessionService(str(path))
    stored = await reopened.get_session(app_name="live_app", user_id="u", session_id=session.id)
    await reopened.close()
    assert stored is not None
    summary = [
        e.text
        or ("call" if e.get_function_calls() else "result" if e.get_function_responses() else "")
        or ("turn_complete" if e.turn_complete else "?")
        for e in stored.events
    ]
    assert summary == [
        "one",
        "Ok",
        "turn_complete",
        "note x",
        "call",
        "result",
        "turn_complete",
        "Done.",
        "turn_complete",
    ]


async def test_history_and_translation_settings_reach_the_connection() -> None:
    model = ScriptedLiveModel()
    live = await make_harness(LlmAgent(name="assistant", model=model))
    queue = LiveRequestQueue()
    queue.close()
    config = RunConfig(
        response_modalities=["AUDIO"],
        history_config=types.HistoryConfig(initial_history_in_client_content=True),
        translation_config=types.TranslationConfig(target_language_code="fr-FR"),
        session_resumption=types.SessionResumptionConfig(handle="h-1"),
    )

    await live.run(queue, run_config=config)

    live_config = model.requests[0].live_connect_config
    assert live_config.history_config == types.HistoryConfig(initial_history_in_client_content=True)
    assert live_config.translation_config == types.TranslationConfig(target_language_code="fr-FR")
    assert live_config.session_resumption == types.SessionResumptionConfig(handle="h-1")


async def test_only_live_requests_carry_a_live_connect_config() -> None:
    # Built for live runs only: an ordinary model step does not pay for one.
    from pyadk.testing import ScriptedModel, TestRunner

    model = ScriptedModel(["hi"])
    await TestRunner(LlmAgent(name="assistant", model=model)).run("hello")
    assert model.requests[0].live_connect_config is None
