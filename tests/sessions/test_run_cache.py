"""A SQL service's Runner turns read only what they have not seen, and never miss it.

The service keeps the decoded events of sessions it ran turns on; each turn's lease
claim reads, in the same transaction, whatever other services (other processes or
machines) wrote since. These tests write through a second service object on the same
database, as another process would.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import pytest
from recorder import Recorder

from pyadk import types
from pyadk.agents.llm_agent import LlmAgent
from pyadk.events import Event
from pyadk.runners import Runner
from pyadk.sessions import DatabaseSessionService, SqliteSessionService
from pyadk.sessions._run_cache import RunCache, View
from pyadk.sessions._sql_service import SqlSessionService
from pyadk.testing.session_conformance import delta_event, text_event

Factory = Callable[..., Awaitable[SqlSessionService]]


@pytest.fixture(params=["sqlite", "postgresql"])
def make(request: pytest.FixtureRequest, tmp_path: Path) -> Factory:
    """Makes services on one shared database (closed by the test)."""
    if request.param == "sqlite":
        path = tmp_path / "sessions.db"

        async def sqlite(**options: int) -> SqlSessionService:
            return SqliteSessionService(path, **options)  # type: ignore[arg-type]

        return sqlite
    pytest.importorskip("asyncpg")
    url = request.getfixturevalue("postgres_url")

    async def postgres(**options: int) -> SqlSessionService:
        return DatabaseSessionService(url, **options)  # type: ignore[arg-type]

    return postgres


@pytest.fixture
def app() -> str:
    """A fresh app name: the PostgreSQL database is shared by the whole test run."""
    return f"app-{uuid.uuid4().hex[:12]}"


@pytest.fixture
async def services(make: Factory) -> AsyncIterator[tuple[SqlSessionService, SqlSessionService]]:
    mine, elsewhere = await make(), await make()
    try:
        yield mine, elsewhere
    finally:
        await mine.close()
        await elsewhere.close()


async def _turn(runner: Runner, session_id: str, text: str) -> list[Event]:
    message = types.Content(role="user", parts=[types.Part(text=text)])
    return [
        e async for e in runner.run_async(user_id="u", session_id=session_id, new_message=message)
    ]


def _runner(
    service: SqlSessionService, app: str, recorder: Recorder, instruction: str = ""
) -> Runner:
    agent = LlmAgent(name="bot", model=recorder.model(), instruction=instruction)
    return Runner(app_name=app, agent=agent, session_service=service)


async def test_a_turn_sees_what_another_service_wrote_since_the_last_one(services, app):
    mine, elsewhere = services
    recorder = Recorder()
    runner = _runner(mine, app, recorder, "Mood: {mood?}")
    session = await mine.create_session(app_name=app, user_id="u", session_id="s")
    await _turn(runner, session.id, "first")
    theirs = await elsewhere.get_session(app_name=app, user_id="u", session_id="s")
    assert theirs is not None
    await elsewhere.append_event(theirs, text_event("written elsewhere", author="other"))
    await elsewhere.append_event(theirs, delta_event({"mood": "sunny"}, author="other"))
    await _turn(runner, session.id, "second")
    seen = recorder.history()
    assert (seen[:2], seen[-1]) == (["first", "reply 1"], "second")
    assert any("written elsewhere" in text for text in seen[2:-1])
    assert recorder.requests[-1].config.system_instruction.startswith("Mood: sunny")
    stored = await elsewhere.get_session(app_name=app, user_id="u", session_id="s")
    assert stored is not None
    assert [e.text for e in stored.events] == [
        "first",
        "reply 1",
        "written elsewhere",
        None,
        "second",
        "reply 2",
    ]


async def test_shared_state_changed_through_another_session_reaches_the_next_turn(services, app):
    mine, elsewhere = services
    recorder = Recorder()
    runner = _runner(mine, app, recorder, "Plan {app:plan?}, language {user:lang?}.")
    session = await mine.create_session(app_name=app, user_id="u")
    await _turn(runner, session.id, "hello")
    other = await elsewhere.create_session(app_name=app, user_id="u")
    await elsewhere.append_event(other, delta_event({"app:plan": "pro", "user:lang": "fr"}))
    await _turn(runner, session.id, "again")
    instructions = [r.config.system_instruction or "" for r in recorder.requests]
    assert instructions[0].startswith("Plan , language .")
    assert instructions[1].startswith("Plan pro, language fr.")


async def test_a_session_deleted_and_created_again_elsewhere_starts_over(services, app):
    mine, elsewhere = services
    recorder = Recorder()
    runner = _runner(mine, app, recorder, "Topic: {topic?}")
    await mine.create_session(app_name=app, user_id="u", session_id="s", state={"topic": "a"})
    await _turn(runner, "s", "old question")
    await elsewhere.delete_session(app_name=app, user_id="u", session_id="s")
    # (the newest row of the table was deleted: SQLite may give its key to the new one)
    again = await elsewhere.create_session(
        app_name=app, user_id="u", session_id="s", state={"topic": "b"}
    )
    for text in ("new one", "new two", "new three"):  # as many events as the old one, and more
        await elsewhere.append_event(again, text_event(text, author="user"))
    await _turn(runner, "s", "new question")
    assert recorder.history() == ["new one", "new two", "new three", "new question"]
    assert recorder.requests[-1].config.system_instruction.startswith("Topic: b")


async def test_a_session_deleted_elsewhere_is_not_found(services, app):
    mine, elsewhere = services
    runner = _runner(mine, app, Recorder())
    await mine.create_session(app_name=app, user_id="u", session_id="s")
    await _turn(runner, "s", "hello")
    await elsewhere.delete_session(app_name=app, user_id="u", session_id="s")
    with pytest.raises(ValueError, match="not found"):
        await _turn(runner, "s", "anyone there?")


async def test_a_turn_decodes_only_the_events_it_has_not_seen(make, app, monkeypatch):
    service = await make()
    try:
        runner = _runner(service, app, Recorder())
        session = await service.create_session(app_name=app, user_id="u")
        for i in range(30):
            await _turn(runner, session.id, f"q{i}")
        decoded: list[str] = []
        original = Event.model_validate_json

        def counting(data: str | bytes, *args: object, **kwargs: object) -> Event:
            decoded.append(str(data))
            return original(data, *args, **kwargs)  # type: ignore[arg-type]

        monkeypatch.setattr(Event, "model_validate_json", counting)
        await _turn(runner, session.id, "q30")
        assert len(decoded) == 2  # the previous turn's question and answer, not 60 events
    finally:
        await service.close()


async def test_changing_a_yielded_event_does_not_change_the_stored_history(make, app):
    service = await make()
    try:
        recorder = Recorder()
        runner = _runner(service, app, recorder)
        session = await service.create_session(app_name=app, user_id="u")
        (answer,) = await _turn(runner, session.id, "hello")
        assert answer.content is not None and answer.content.parts
        answer.content.parts[0].text = "tampered"
        await _turn(runner, session.id, "again")
        assert recorder.history() == ["hello", "reply 1", "again"]
    finally:
        await service.close()


async def test_without_a_cache_every_turn_reads_the_whole_session(make, app):
    service = await make(cached_events=0)
    try:
        recorder = Recorder()
        runner = _runner(service, app, recorder)
        session = await service.create_session(app_name=app, user_id="u")
        for text in ("one", "two", "three"):
            await _turn(runner, session.id, text)
        assert recorder.history() == ["one", "reply 1", "two", "reply 2", "three"]
        assert service._cache.snapshot((app, "u", session.id)) is None
    finally:
        await service.close()


def _view(events: int) -> View:
    view = View((1, 0.0), events, 0.0, {})
    view.events.extend(f'{{"author":"a","id":"e{i}"}}' for i in range(events))
    return view


def test_the_cache_evicts_least_recently_used_sessions_but_keeps_the_last():
    cache = RunCache(max_events=11)  # each session counts its events and one more
    cache.put(("a", "u", "1"), _view(3))
    cache.put(("a", "u", "2"), _view(3))
    assert cache.snapshot(("a", "u", "1")) is not None  # now the most recently used
    cache.put(("a", "u", "3"), _view(3))  # 12 > 11: session 2 goes
    assert cache.snapshot(("a", "u", "2")) is None
    assert [e.id for e in cache.snapshot(("a", "u", "1")).events] == ["e0", "e1", "e2"]
    cache.put(("a", "u", "big"), _view(50))  # larger than the cache: kept alone
    assert cache.snapshot(("a", "u", "1")) is None
    assert len(cache.snapshot(("a", "u", "big")).events) == 50


def test_sessions_without_events_count_too():
    cache = RunCache(max_events=100)
    for i in range(150):
        cache.put(("a", "u", str(i)), _view(0))
    assert cache.snapshot(("a", "u", "49")) is None
    assert cache.snapshot(("a", "u", "50")) is not None


def test_the_cache_adds_events_only_right_after_what_it_has_seen():
    cache = RunCache(max_events=100)
    key = ("a", "u", "s")
    cache.put(key, _view(2))
    cache.extend(key, (1, 0.0), 3, ['{"author":"x"}'], update_time=5.0)  # a gap: ignored
    cache.extend(key, (2, 0.0), 2, ['{"author":"x"}'], update_time=5.0)  # another session
    assert cache.snapshot(key).seq == 2
    cache.extend(key, (1, 0.0), 2, ['{"author":"x"}'], update_time=5.0, state={"k": "1"})
    snapshot = cache.snapshot(key)
    assert (snapshot.seq, snapshot.update_time, snapshot.state) == (3, 5.0, {"k": "1"})
    assert snapshot.events[-1].author == "x"


async def test_a_turn_cancelled_while_claiming_gives_the_session_back(make, app):
    service = await make()
    try:
        session = await service.create_session(app_name=app, user_id="u")
        mine = await service._load_session_for_run(app_name=app, user_id="u", session_id=session.id)
        assert mine is not None
        entering = asyncio.create_task(service.turn(mine, invocation_id="gone").__aenter__())
        await asyncio.sleep(0)  # the claim is on its way to the database
        entering.cancel()  # e.g. the client disconnected
        with pytest.raises(asyncio.CancelledError):
            await entering
        other = await service.get_session(app_name=app, user_id="u", session_id=session.id)
        assert other is not None
        async with service.turn(other, invocation_id="next", wait=10):  # not 60 s of busy
            await service.append_event(other, text_event("served"))
        stored = await service.get_session(app_name=app, user_id="u", session_id=session.id)
        assert stored is not None and [e.text for e in stored.events] == ["served"]
    finally:
        await service.close()
