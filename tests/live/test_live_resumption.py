"""Long live sessions: resumption handles, go_away and server closes, reconnection."""

from __future__ import annotations

import asyncio

import pytest
from live_support import TEXT, make_harness, texts, user

from pyadk import types
from pyadk.agents import LiveRequestQueue, LlmAgent
from pyadk.models import LiveConnectionClosedError
from pyadk.sessions._event_codec import decode, encode
from pyadk.testing import (
    ScriptedLiveModel,
    ServerClose,
    go_away,
    live_responses,
    resumption_update,
)

RESUMING = TEXT.model_copy(update={"session_resumption": types.SessionResumptionConfig()})


async def send_after_connection(
    model: ScriptedLiveModel, queue: LiveRequestQueue, count: int, text: str
) -> None:
    """Sends ``text`` once the model has its ``count``-th connection."""
    while len(model.connections) < count:
        await asyncio.sleep(0.005)
    queue.send_content(user(text))


async def test_go_away_reconnects_with_the_latest_handle_and_the_run_goes_on() -> None:
    model = ScriptedLiveModel(
        [
            [
                resumption_update("h-1"),
                *live_responses("Hello!"),
                resumption_update("h-2"),
                go_away("5s"),
            ],
            "Still here.",
        ]
    )
    agent = LlmAgent(name="assistant", model=model)
    live = await make_harness(agent)
    queue = LiveRequestQueue()
    queue.send_content(user("hi"))
    follow_up = asyncio.create_task(send_after_connection(model, queue, 2, "still there?"))

    events = await live.run(queue, close_after_turns=2, run_config=RESUMING)
    await follow_up

    assert texts(events) == ["Hello!", "Still here."]
    first, second = model.connections
    # The first connection started a new session; the second resumed it with the
    # latest handle.
    assert first.resumption_handle is None
    assert second.resumption_handle == "h-2"
    assert first.closed and not first.closed_by_server
    assert [c.parts[0].text for c in second.sent] == ["still there?"]
    # Both runs' events belong to one invocation; the handles reached the caller.
    assert len({e.invocation_id for e in events}) == 1
    handles = [
        e.live_session_resumption_update.new_handle
        for e in events
        if e.live_session_resumption_update is not None
    ]
    assert handles == ["h-1", "h-2"]
    assert not any(e.go_away for e in events)
    # The user's turns are stored once each, with the answers.
    stored = await live.stored()
    assert [e.content.parts[0].text for e in stored if e.author == "user" and e.content] == [
        "hi",
        "still there?",
    ]
    assert "Still here." in texts(stored)


async def test_a_server_close_with_a_handle_reconnects_and_sends_what_was_not_sent() -> None:
    model = ScriptedLiveModel(
        [[resumption_update("h-1"), *live_responses("One."), ServerClose()], "Two."]
    )
    live = await make_harness(LlmAgent(name="assistant", model=model))
    queue = LiveRequestQueue()
    queue.send_content(user("one"))

    async def talk(event) -> None:
        if event.turn_complete and model.reply_count == 1:
            queue.send_content(user("two"))  # the closed connection refuses it

    events = await live.run(queue, on_event=talk, close_after_turns=2, run_config=RESUMING)

    assert texts(events) == ["One.", "Two."]
    first, second = model.connections
    assert first.closed_by_server
    assert second.resumption_handle == "h-1"
    assert [c.parts[0].text for c in second.sent] == ["two"]
    stored = await live.stored()
    assert [e.content.parts[0].text for e in stored if e.author == "user" and e.content] == [
        "one",
        "two",
    ]


async def test_a_lost_connection_is_resumed() -> None:
    lost = LiveConnectionClosedError("dropped", code=1006)
    model = ScriptedLiveModel([[*live_responses("One."), resumption_update("h-1")], lost, "Two."])
    live = await make_harness(LlmAgent(name="assistant", model=model))
    queue = LiveRequestQueue()
    queue.send_content(user("one"))

    async def talk(event) -> None:
        if event.turn_complete and model.reply_count == 1:
            queue.send_content(user("two"))  # answered by the loss of the connection

    follow_up = asyncio.create_task(send_after_connection(model, queue, 2, "again"))
    events = await live.run(queue, on_event=talk, close_after_turns=2, run_config=RESUMING)
    await follow_up

    assert texts(events) == ["One.", "Two."]
    assert model.connections[1].resumption_handle == "h-1"


async def test_a_connection_closed_for_good_raises_even_with_a_handle() -> None:
    refused = LiveConnectionClosedError("policy violation", code=1008, resumable=False)
    model = ScriptedLiveModel([[resumption_update("h-1"), *live_responses("One.")], refused])
    live = await make_harness(LlmAgent(name="assistant", model=model))
    queue = LiveRequestQueue()
    queue.send_content(user("one"))

    async def talk(event) -> None:
        if event.turn_complete:
            queue.send_content(user("two"))

    with pytest.raises(LiveConnectionClosedError, match="policy violation"):
        await live.run(queue, on_event=talk, run_config=RESUMING)
    assert len(model.connections) == 1


async def test_a_run_config_handle_resumes_the_first_connection_without_history() -> None:
    model = ScriptedLiveModel(["Hello.", "Welcome back."])
    live = await make_harness(LlmAgent(name="assistant", model=model))
    first = LiveRequestQueue()
    first.send_content(user("hi"))
    await live.run(first, close_after_turns=1, run_config=TEXT)
    queue = LiveRequestQueue()
    queue.send_content(user("hi again"))
    config = TEXT.model_copy(
        update={"session_resumption": types.SessionResumptionConfig(handle="saved")}
    )

    events = await live.run(queue, close_after_turns=1, run_config=config)

    assert texts(events) == ["Welcome back."]
    connection = model.connections[1]
    assert connection.resumption_handle == "saved"
    assert connection.history is None  # the server holds the session's history
    assert config.session_resumption is not None
    assert config.session_resumption.handle == "saved"  # the caller's config is unchanged


async def test_without_session_resumption_a_server_close_ends_the_run() -> None:
    model = ScriptedLiveModel(
        [[*live_responses("Bye."), resumption_update("h-1"), go_away(), ServerClose()]]
    )
    live = await make_harness(LlmAgent(name="assistant", model=model))
    queue = LiveRequestQueue()
    queue.send_content(user("hi"))

    events = await live.run(queue, run_config=TEXT)  # ends without the client's close

    assert texts(events) == ["Bye."]
    (connection,) = model.connections
    assert connection.closed_by_server


async def test_without_a_handle_a_server_close_ends_the_run() -> None:
    model = ScriptedLiveModel([[*live_responses("Bye."), ServerClose()]])
    live = await make_harness(LlmAgent(name="assistant", model=model))
    queue = LiveRequestQueue()
    queue.send_content(user("hi"))

    events = await live.run(queue, run_config=RESUMING)

    assert texts(events) == ["Bye."]
    assert len(model.connections) == 1


async def test_reconnect_attempts_exhausted_raise_a_clear_error() -> None:
    model = ScriptedLiveModel(
        [[*live_responses("One."), resumption_update("h-1"), go_away()]],
        reconnect_error=ConnectionRefusedError("session expired"),
    )
    live = await make_harness(LlmAgent(name="assistant", model=model))
    queue = LiveRequestQueue()
    queue.send_content(user("one"))

    with pytest.raises(ConnectionError, match="reconnect attempts in a row failed") as caught:
        await live.run(queue, run_config=RESUMING)

    message = str(caught.value)
    assert "'assistant'" in message and "5 reconnect attempts" in message
    assert "session expired" in message
    assert isinstance(caught.value.__cause__, ConnectionRefusedError)
    # One connection, then five attempts to resume it.
    assert [r.live_connect_config.session_resumption.handle for r in model.requests] == [
        None,
        *["h-1"] * 5,
    ]


async def test_a_transferred_agent_starts_a_new_session() -> None:
    helper_model = ScriptedLiveModel(["Helper here."])
    helper = LlmAgent(name="helper", model=helper_model, description="Helps.")
    call = types.Part(
        function_call=types.FunctionCall(name="transfer_to_agent", args={"agent_name": "helper"})
    )
    root_model = ScriptedLiveModel(
        [[resumption_update("root-handle"), *live_responses(call)]],
    )
    root = LlmAgent(name="root", model=root_model, sub_agents=[helper])
    live = await make_harness(root)
    queue = LiveRequestQueue()
    queue.send_content(user("help"))

    events = await live.run(queue, close_after_turns=1, run_config=RESUMING)

    assert "Helper here." in texts(events)
    (connection,) = helper_model.connections
    assert connection.resumption_handle is None


def test_stored_events_keep_the_resumption_update() -> None:
    from pyadk.events.event import Event

    update = types.LiveServerSessionResumptionUpdate(new_handle="h", resumable=True)
    event = Event(author="assistant", live_session_resumption_update=update)

    restored = decode(encode(event), Event)

    assert restored == event
    assert restored.to_json_dict()["liveSessionResumptionUpdate"] == {
        "newHandle": "h",
        "resumable": True,
    }
