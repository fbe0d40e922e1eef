"""Session-service conformance: a turn has its session to itself (the turn lease)."""

from __future__ import annotations

import asyncio
import logging

import pytest

from pyadk import types
from pyadk.agents.llm_agent import LlmAgent
from pyadk.events.event import Event
from pyadk.models.llm_request import LlmRequest
from pyadk.runners import Runner
from pyadk.sessions.base_session_service import BaseSessionService, SessionNotFoundError
from pyadk.sessions.errors import SessionBusyError, StaleSessionError
from pyadk.sessions.session import Session
from pyadk.testing._conformance_core import ConformanceBase, text_event
from pyadk.testing.scripted_models import FunctionModel, ScriptedModel, function_call


class _Gate:
    """Models whose answer waits for :attr:`release`: they hold a runner in its turn."""

    def __init__(self) -> None:
        self.entered = asyncio.Event()
        self.release = asyncio.Event()

    def model(self, answer: str) -> FunctionModel:
        async def reply(_: LlmRequest) -> str:
            self.entered.set()
            await self.release.wait()
            return answer

        return FunctionModel(reply)


async def _turn(
    service: BaseSessionService, app: str, session: Session, agent: LlmAgent, text: str
) -> list[Event]:
    runner = Runner(app_name=app, agent=agent, session_service=service)
    message = types.Content(role="user", parts=[types.Part(text=text)])
    return [
        e async for e in runner.run_async(user_id="u", session_id=session.id, new_message=message)
    ]


async def _first_event(
    service: BaseSessionService, app: str, session: Session, agent: LlmAgent, text: str
) -> Event:
    """The first event of a turn, read by a caller that then stops reading (without
    closing the run: Python finalizes it once nothing refers to it)."""
    runner = Runner(app_name=app, agent=agent, session_service=service)
    message = types.Content(role="user", parts=[types.Part(text=text)])
    async for event in runner.run_async(user_id="u", session_id=session.id, new_message=message):
        return event
    raise AssertionError("the turn had no event")


def _said(session: Session) -> list[tuple[str, str | None]]:
    return [(e.author, e.text) for e in session.events]


class LeaseConformance(ConformanceBase):
    """``turn`` makes a session single-writer; the Runner holds it for a whole turn."""

    @pytest.fixture(autouse=True)
    def _needs_leases(self) -> None:
        if not self.leases_turns:
            pytest.skip(f"{type(self).__name__} does not lease sessions to turns")

    async def test_a_turn_keeps_other_writers_out_until_it_ends(
        self, service: BaseSessionService, app: str
    ) -> None:
        session = await service.create_session(app_name=app, user_id="u")
        mine = await self.reload(service, session)
        async with service.turn(mine, invocation_id="inv-a") as held:
            assert held is mine
            await service.append_event(mine, text_event("inside"))
            other = await self.reload(service, session)
            with pytest.raises(SessionBusyError, match="turn 'inv-a' is running") as busy:
                await service.append_event(other, text_event("intruder"))
            assert busy.value.owner == "inv-a"
            assert 0 < (busy.value.retry_after or 0) <= service.lease_ttl
            with pytest.raises(SessionBusyError):
                async with service.turn(other, invocation_id="inv-b"):
                    pytest.fail("a second turn started on a busy session")
            assert _said(other) == [("agent", "inside")]  # the refused object is untouched
            await service.append_event(mine, text_event("still mine"))
        after = await self.reload(service, session)
        assert _said(after) == [("agent", "inside"), ("agent", "still mine")]
        async with service.turn(after, invocation_id="inv-b"):  # free again
            await service.append_event(after, text_event("next turn"))
        await service.append_event(after, text_event("no turn"))  # and so are plain appends
        assert [t for _, t in _said(await self.reload(service, session))][-2:] == [
            "next turn",
            "no turn",
        ]

    async def test_a_stale_object_or_missing_session_cannot_start_a_turn(
        self, service: BaseSessionService, app: str
    ) -> None:
        session = await service.create_session(app_name=app, user_id="u")
        old = await self.reload(service, session)
        newer = await self.reload(service, session)
        await service.append_event(newer, text_event("first"))
        with pytest.raises(StaleSessionError, match="seen 0 events, the store has 1"):
            async with service.turn(old, invocation_id="late"):
                pytest.fail("a turn started on a stale session object")
        ghost = session.model_copy(update={"id": "no-such-session"})
        with pytest.raises(SessionNotFoundError):
            async with service.turn(ghost, invocation_id="ghost"):
                pytest.fail("a turn started on a missing session")
        fresh = await self.reload(service, session)  # the refusals left no lease behind
        async with service.turn(fresh, invocation_id="next"):
            await service.append_event(fresh, text_event("second"))
        assert _said(await self.reload(service, session)) == [
            ("agent", "first"),
            ("agent", "second"),
        ]

    async def test_a_turn_with_a_bad_ttl_or_wait_is_refused(
        self, service: BaseSessionService, app: str
    ) -> None:
        session = await service.create_session(app_name=app, user_id="u")
        with pytest.raises(ValueError, match="ttl must be positive, got 0"):
            service.turn(session, invocation_id="bad", ttl=0)
        with pytest.raises(ValueError, match="wait must be 0 or more seconds, got -1"):
            service.turn(session, invocation_id="bad", wait=-1)
        async with service.turn(session, invocation_id="good"):  # nothing was claimed
            await service.append_event(session, text_event("fine"))

    async def test_a_turn_that_raises_gives_the_session_back(
        self, service: BaseSessionService, app: str
    ) -> None:
        session = await service.create_session(app_name=app, user_id="u")
        with pytest.raises(RuntimeError, match="boom"):
            async with service.turn(session, invocation_id="doomed"):
                await service.append_event(session, text_event("before boom"))
                raise RuntimeError("boom")
        fresh = await self.reload(service, session)
        await service.append_event(fresh, text_event("after boom"))
        assert [t for _, t in _said(await self.reload(service, session))] == [
            "before boom",
            "after boom",
        ]

    async def test_a_long_turn_keeps_its_lease_without_appending(
        self, service: BaseSessionService, app: str
    ) -> None:
        session = await service.create_session(app_name=app, user_id="u")
        ttl = 1.0

        async def refused() -> SessionBusyError:
            other = await self.reload(service, session)
            with pytest.raises(SessionBusyError) as busy:
                await service.append_event(other, text_event("intruder"))
            return busy.value

        async with service.turn(session, invocation_id="slow", ttl=ttl):
            first = (await refused()).expires_at or 0.0
            # Busy at every look, until a renewal made without any append has pushed the
            # lease past the point where the first one would have expired.
            while ((await refused()).expires_at or 0.0) <= first + ttl:
                await asyncio.sleep(0.05)
            await service.append_event(session, text_event("done"))
        assert _said(await self.reload(service, session)) == [("agent", "done")]

    async def test_a_runner_starting_during_another_turn_is_refused_and_writes_nothing(
        self, service: BaseSessionService, app: str
    ) -> None:
        session = await service.create_session(app_name=app, user_id="u")
        gate = _Gate()
        first = LlmAgent(name="first", model=gate.model("answer one"))
        running = asyncio.create_task(_turn(service, app, session, first, "question one"))
        await gate.entered.wait()  # turn one stored its question and waits for its model
        model = ScriptedModel(["answer two"])
        second = LlmAgent(name="second", model=model)
        with pytest.raises(SessionBusyError) as busy:
            await _turn(service, app, session, second, "question two")
        stored = await self.reload(service, session)
        assert _said(stored) == [("user", "question one")]  # no dangling second question
        assert busy.value.owner == stored.events[0].invocation_id
        assert model.requests == []
        gate.release.set()
        await running
        await _turn(service, app, session, second, "question two")  # now it may run
        assert _said(await self.reload(service, session)) == [
            ("user", "question one"),
            ("first", "answer one"),
            ("user", "question two"),
            ("second", "answer two"),
        ]
        seen = [p.text or "" for c in model.requests[0].contents for p in c.parts or []]
        assert seen[0] == "question one" and seen[-1] == "question two"
        assert any("answer one" in text for text in seen)  # the whole first turn

    async def test_two_runners_started_together_run_exactly_one_turn(
        self, service: BaseSessionService, app: str
    ) -> None:
        session = await service.create_session(app_name=app, user_id="u")
        gate = _Gate()
        tasks = {
            name: asyncio.create_task(
                _turn(service, app, session, LlmAgent(name=name, model=gate.model(name)), name)
            )
            for name in ("a", "b")
        }
        done, _ = await asyncio.wait(
            tasks.values(), timeout=60, return_when=asyncio.FIRST_COMPLETED
        )
        assert len(done) == 1, "both runners went on to call their model"
        (refused,) = done  # the winner is still waiting for its model
        assert isinstance(refused.exception(), SessionBusyError), refused.exception()
        await gate.entered.wait()  # the winner stored its question and waits for its model
        assert _said(await self.reload(service, session)) == [
            ("user", next(n for n, t in tasks.items() if t is not refused))
        ]
        gate.release.set()
        (winner,) = (n for n, t in tasks.items() if t is not refused)
        assert [e.text for e in await tasks[winner]] == [winner]
        assert _said(await self.reload(service, session)) == [("user", winner), (winner, winner)]

    async def test_turns_on_different_sessions_never_wait_for_each_other(
        self, service: BaseSessionService, app: str
    ) -> None:
        held = await service.create_session(app_name=app, user_id="u")
        free = await service.create_session(app_name=app, user_id="u")
        gate = _Gate()
        agent = LlmAgent(name="slow", model=gate.model("finally"))
        running = asyncio.create_task(_turn(service, app, held, agent, "hold this one"))
        await gate.entered.wait()
        other = LlmAgent(name="quick", model=ScriptedModel(["right away"]))
        events = await _turn(service, app, free, other, "meanwhile")  # while `held` is held
        assert [e.text for e in events] == ["right away"]
        assert not running.done()
        gate.release.set()
        await running
        assert _said(await self.reload(service, held)) == [
            ("user", "hold this one"),
            ("slow", "finally"),
        ]

    async def test_a_waiting_runner_runs_when_the_busy_turn_ends(
        self, service: BaseSessionService, app: str, caplog: pytest.LogCaptureFixture
    ) -> None:
        caplog.set_level(logging.INFO, logger="pyadk.sessions")
        service.lease_wait = 60.0
        session = await service.create_session(app_name=app, user_id="u")
        gate = _Gate()
        first = LlmAgent(name="first", model=gate.model("one"))
        running = asyncio.create_task(_turn(service, app, session, first, "q1"))
        await gate.entered.wait()
        second = LlmAgent(name="second", model=ScriptedModel(["two"]))
        waiting = asyncio.create_task(_turn(service, app, session, second, "q2"))

        async def reported_waiting() -> None:
            while not any("is busy" in r.getMessage() for r in caplog.records):
                await asyncio.sleep(0.01)

        await asyncio.wait_for(reported_waiting(), 30)
        assert _said(await self.reload(service, session)) == [("user", "q1")]
        gate.release.set()
        await running
        assert [e.text for e in await waiting] == ["two"]
        assert _said(await self.reload(service, session)) == [
            ("user", "q1"),
            ("first", "one"),
            ("user", "q2"),
            ("second", "two"),
        ]

    async def test_a_failed_or_abandoned_turn_gives_the_session_back(
        self, service: BaseSessionService, app: str
    ) -> None:
        session = await service.create_session(app_name=app, user_id="u")
        broken = LlmAgent(name="broken", model=ScriptedModel([RuntimeError("model down")]))
        with pytest.raises(RuntimeError, match="model down"):
            await _turn(service, app, session, broken, "try")

        def step() -> str:
            """One step."""
            return "stepped"

        model = ScriptedModel([function_call("step"), "never reached"])
        agent = LlmAgent(name="tool_user", model=model, tools=[step])
        runner = Runner(app_name=app, agent=agent, session_service=service)
        message = types.Content(role="user", parts=[types.Part(text="go")])
        events = runner.run_async(user_id="u", session_id=session.id, new_message=message)
        first = await anext(events)  # the tool call; then the caller walks away
        await events.aclose()
        assert first.get_function_calls()[0].name == "step"
        last = LlmAgent(name="last", model=ScriptedModel(["fine"]))
        assert [e.text for e in await _turn(service, app, session, last, "again")] == ["fine"]

    async def test_the_next_turn_runs_right_after_a_caller_stopped_reading(
        self, service: BaseSessionService, app: str
    ) -> None:
        session = await service.create_session(app_name=app, user_id="u")

        def step() -> str:
            """One step."""
            return "stepped"

        agent = LlmAgent(name="bot", model=ScriptedModel([function_call("step")]), tools=[step])
        first = await _first_event(service, app, session, agent, "start")
        assert first.get_function_calls()[0].name == "step"  # then the caller walked away
        other = LlmAgent(name="next", model=ScriptedModel(["here"]))
        assert [e.text for e in await _turn(service, app, session, other, "again")] == ["here"]
        stored = (await self.reload(service, session)).events
        assert (stored[0].text, stored[1].id) == ("start", first.id)
        assert [(e.author, e.text) for e in stored[-2:]] == [("user", "again"), ("next", "here")]

    async def test_closing_the_service_frees_a_session_its_caller_walked_away_from(
        self, service: BaseSessionService, app: str
    ) -> None:
        if self.service_uri() is None:
            pytest.skip(f"{type(self).__name__} does not share sessions between services")
        session = await service.create_session(app_name=app, user_id="u")
        elsewhere = await self.make_service()  # e.g. another worker of the same app
        try:
            agent = LlmAgent(name="bot", model=ScriptedModel(["one", "two"]))
            await _first_event(elsewhere, app, session, agent, "hello")
        finally:
            await elsewhere.close()
        other = LlmAgent(name="next", model=ScriptedModel(["here"]))
        assert [e.text for e in await _turn(service, app, session, other, "again")] == ["here"]

    async def test_turns_from_two_processes_never_interleave(
        self, service: BaseSessionService, app: str
    ) -> None:
        self.uri_or_skip()
        session = await service.create_session(app_name=app, user_id="u", session_id="duel")
        count = 6
        await self.run_two_workers("turns", session, count, timeout=180)
        events = (await self.reload(service, session)).events
        assert len(events) == 4 * count
        pairs = [(events[i], events[i + 1]) for i in range(0, len(events), 2)]
        for question, answer in pairs:  # every turn whole: its question, then its answer
            assert question.author == "user" and answer.author in ("p1", "p2")
            assert question.invocation_id == answer.invocation_id
            assert question.text == f"{answer.author} asks {(answer.text or '')[-1]}"
        for tag in ("p1", "p2"):
            assert [a.text for _, a in pairs if a.author == tag] == [
                f"{tag} answers {i}" for i in range(count)
            ]
