"""Failures of live runs: each ends the run with a clear error, the session kept usable."""

from __future__ import annotations

import warnings

import pytest
from live_support import TEXT, make_harness, user

from pyadk import types
from pyadk.agents import InvocationContext, LiveRequestQueue, LlmAgent, RunConfig
from pyadk.sessions import SessionBusyError, SessionNotFoundError
from pyadk.testing import ScriptedLiveModel, ScriptedModel, ScriptExhaustedError, Stream


async def test_a_model_connection_that_fails_ends_the_run_with_its_error() -> None:
    model = ScriptedLiveModel(connect_error=ConnectionError("live endpoint unreachable"))
    live = await make_harness(LlmAgent(name="assistant", model=model))
    queue = LiveRequestQueue()
    queue.send_content(user("hi"))

    with pytest.raises(ConnectionError, match="live endpoint unreachable"):
        await live.run(queue)

    # The session is free again: an ordinary turn runs on it.
    agent = live.runner.agent
    assert isinstance(agent, LlmAgent)
    agent.model = ScriptedModel(["Back to text."])
    events = [
        e
        async for e in live.runner.run_async(
            user_id="u", session_id=live.session_id, new_message=user("hello")
        )
    ]
    assert events[-1].text == "Back to text."


async def test_a_connection_dropped_mid_run_raises_and_keeps_what_was_stored() -> None:
    model = ScriptedLiveModel(["First answer.", ConnectionResetError("connection dropped")])
    live = await make_harness(LlmAgent(name="assistant", model=model))
    queue = LiveRequestQueue()
    queue.send_content(user("one"))

    async def again(event) -> None:
        if event.turn_complete:
            queue.send_content(user("two"))

    with pytest.raises(ConnectionResetError, match="connection dropped"):
        await live.run(queue, on_event=again)

    stored = [e.text for e in await live.stored() if e.content]
    assert stored == ["one", "First answer.", "two"]


async def test_a_model_without_a_live_api_is_refused_clearly() -> None:
    live = await make_harness(LlmAgent(name="assistant", model=ScriptedModel(["hi"])))
    queue = LiveRequestQueue()
    queue.send_content(user("hi"))

    with pytest.raises(NotImplementedError, match="ScriptedModel model 'scripted' has no live"):
        await live.run(queue)


async def test_a_user_message_with_a_function_call_is_refused() -> None:
    live = await make_harness(LlmAgent(name="assistant", model=ScriptedLiveModel()))
    queue = LiveRequestQueue()
    queue.send_content(
        types.Content(role="user", parts=[types.Part.from_function_call(name="f", args={})])
    )

    with pytest.raises(ValueError, match="User message cannot contain function calls"):
        await live.run(queue)


async def test_an_input_beyond_the_script_raises_script_exhausted() -> None:
    live = await make_harness(LlmAgent(name="assistant", model=ScriptedLiveModel(["only one"])))
    queue = LiveRequestQueue()
    queue.send_content(user("one"))
    queue.send_content(user("two"))

    with pytest.raises(ScriptExhaustedError, match="got input #2 to answer but has only 1"):
        await live.run(queue)


async def test_the_live_run_holds_the_session_until_it_ends() -> None:
    model = ScriptedLiveModel(["Live answer."])
    live = await make_harness(LlmAgent(name="assistant", model=model))
    queue = LiveRequestQueue()
    queue.send_content(user("hi"))
    refused: list[Exception] = []

    async def try_a_turn(event) -> None:
        if event.turn_complete:
            try:
                async for _ in live.runner.run_async(
                    user_id="u", session_id=live.session_id, new_message=user("meanwhile")
                ):
                    pass
            except SessionBusyError as error:
                refused.append(error)

    await live.run(queue, on_event=try_a_turn, close_after_turns=1)

    assert len(refused) == 1


async def test_run_live_arguments_are_checked() -> None:
    live = await make_harness(LlmAgent(name="assistant", model=ScriptedLiveModel()))
    runner = live.runner
    queue = LiveRequestQueue()

    with pytest.raises(ValueError, match="needs user_id and session_id"):
        await anext(runner.run_live(user_id="u", live_request_queue=queue))
    with pytest.raises(ValueError, match="live_request_queue is required"):
        await anext(
            runner.run_live(user_id="u", session_id=live.session_id, live_request_queue=None)  # type: ignore[arg-type]
        )
    with pytest.raises(ValueError, match="save_live_blob is set but the Runner has no artifact"):
        await anext(
            runner.run_live(
                user_id="u",
                session_id=live.session_id,
                live_request_queue=queue,
                run_config=RunConfig(save_live_blob=True),
            )
        )
    with pytest.raises(SessionNotFoundError, match="Session not found: 'missing'"):
        await anext(runner.run_live(user_id="u", session_id="missing", live_request_queue=queue))


async def test_the_deprecated_session_argument_still_works_with_a_warning() -> None:
    model = ScriptedLiveModel(["Hi."])
    live = await make_harness(LlmAgent(name="assistant", model=model))
    session = await live.runner.session_service.get_session(
        app_name="live_app", user_id="u", session_id=live.session_id
    )
    queue = LiveRequestQueue()
    queue.send_content(user("hi"))
    queue_events = []

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        async for event in live.runner.run_live(
            session=session, live_request_queue=queue, run_config=TEXT
        ):
            queue_events.append(event)
            if event.turn_complete:
                queue.close()

    assert any(issubclass(w.category, DeprecationWarning) for w in caught)
    assert [e.text for e in queue_events if e.content] == ["Hi."]


async def test_an_agent_run_live_without_a_queue_is_refused() -> None:
    agent = LlmAgent(name="assistant", model=ScriptedLiveModel())
    live = await make_harness(agent)
    session = await live.runner.session_service.get_session(
        app_name="live_app", user_id="u", session_id=live.session_id
    )
    assert session is not None
    ctx = InvocationContext(
        session_service=live.runner.session_service, session=session, agent=agent
    )

    with pytest.raises(ValueError, match="cannot run live without a LiveRequestQueue"):
        async for _ in agent.run_live(ctx):
            pass


async def test_a_caller_that_stops_reading_ends_the_run_and_frees_the_session() -> None:
    from contextlib import aclosing

    model = ScriptedLiveModel([Stream(["a", "b", "c"])])
    live = await make_harness(LlmAgent(name="assistant", model=model))
    queue = LiveRequestQueue()
    queue.send_content(user("hi"))

    async with aclosing(
        live.runner.run_live(
            user_id="u", session_id=live.session_id, live_request_queue=queue, run_config=TEXT
        )
    ) as events:
        async for event in events:
            assert event.partial
            break  # the caller goes away mid-turn

    assert model.connections[0].closed
    agent = live.runner.agent
    assert isinstance(agent, LlmAgent)
    agent.model = ScriptedModel(["Back."])
    replies = [
        e
        async for e in live.runner.run_async(
            user_id="u", session_id=live.session_id, new_message=user("again")
        )
    ]
    assert replies[-1].text == "Back."
