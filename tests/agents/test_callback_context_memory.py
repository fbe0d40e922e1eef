"""Callback contexts (google-adk's Context methods): the user's memory (a session's
events, a delta of events, direct entries where the service allows them), the user id
and the run config."""

from __future__ import annotations

from pyadk import types
from pyadk.agents import CallbackContext, LlmAgent
from pyadk.memory import InMemoryMemoryService, MemoryEntry
from pyadk.runners import Runner
from pyadk.sessions import InMemorySessionService
from pyadk.testing import ScriptedModel, TestRunner


async def test_after_agent_callbacks_write_memory_that_later_sessions_find() -> None:
    found: list[list[str]] = []

    async def remember(callback_context: CallbackContext) -> None:
        await callback_context.add_session_to_memory()
        result = await callback_context.search_memory("Tuesday")
        found.append([m.content.text or "" for m in result.memories])

    async def remember_delta(callback_context: CallbackContext) -> None:
        session = callback_context._invocation_context.session
        await callback_context.add_events_to_memory(events=session.events[-1:])

    memory = InMemoryMemoryService()
    sessions = InMemorySessionService()
    model = ScriptedModel(["Noted: the vet is on Tuesday.", "Tuesday it is."])
    agent = LlmAgent(name="notes", model=model, after_agent_callback=[remember_delta, remember])
    runner = Runner(app_name="app", agent=agent, session_service=sessions, memory_service=memory)
    for session_id in ("s1", "s2"):
        await sessions.create_session(app_name="app", user_id="u", session_id=session_id)
        message = types.Content(role="user", parts=[types.Part(text="vet Tuesday")])
        async for _ in runner.run_async(user_id="u", session_id=session_id, new_message=message):
            pass
    assert found[0] == ["Noted: the vet is on Tuesday.", "vet Tuesday"]
    assert "Tuesday it is." in found[1] and "Noted: the vet is on Tuesday." in found[1]


async def test_memory_calls_without_a_memory_service_or_support_fail_clearly() -> None:
    errors: list[str] = []

    async def write(callback_context: CallbackContext) -> None:
        for call in (
            callback_context.add_session_to_memory(),
            callback_context.search_memory("x"),
            callback_context.add_memory(memories=[MemoryEntry(content=types.UserContent("x"))]),
        ):
            try:
                await call
            except (ValueError, NotImplementedError) as error:
                errors.append(str(error))

    sessions = InMemorySessionService()
    await sessions.create_session(app_name="app", user_id="u", session_id="s")
    agent = LlmAgent(name="notes", model=ScriptedModel(["ok", "ok"]), after_agent_callback=write)
    runner = Runner(app_name="app", agent=agent, session_service=sessions)  # no memory
    async for _ in runner.run_async(
        user_id="u", session_id="s", new_message=types.UserContent("hi")
    ):
        pass
    assert errors == [
        "Cannot add session to memory: memory service is not available (pass "
        "memory_service= to the Runner).",
        "Cannot search memory: memory service is not available (pass memory_service= to "
        "the Runner).",
        "Cannot add memory: memory service is not available (pass memory_service= to the Runner).",
    ]
    errors.clear()
    await TestRunner(agent).run("hi")  # an in-memory service: no direct writes
    assert errors == [
        "InMemoryMemoryService does not support direct memory writes; call "
        "add_events_to_memory(...) or add_session_to_memory(session) instead."
    ]


async def test_contexts_name_the_user_and_the_run_config() -> None:
    from pyadk.agents import RunConfig, StreamingMode

    seen: list[tuple[str, StreamingMode]] = []

    def note(callback_context: CallbackContext) -> None:
        seen.append((callback_context.user_id, callback_context.run_config.streaming_mode))

    agent = LlmAgent(name="notes", model=ScriptedModel(["ok"]), before_agent_callback=note)
    config = RunConfig(streaming_mode=StreamingMode.SSE)
    await TestRunner(agent, user_id="ada").run("hi", run_config=config)
    assert seen == [("ada", StreamingMode.SSE)]
