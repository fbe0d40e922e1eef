"""A turn's user message is stored with the lease claim: nothing is written when the
session cannot be claimed, and a SQL store needs one transaction less per turn."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest

from pyadk import types
from pyadk.agents import LlmAgent
from pyadk.events.event import Event
from pyadk.runners import Runner
from pyadk.sessions import InMemorySessionService, SessionBusyError
from pyadk.sessions.sqlite_session_service import SqliteSessionService
from pyadk.testing import ScriptedModel

T = TypeVar("T")


class CountingSqlite(SqliteSessionService):
    """Counts write transactions."""

    writes = 0

    async def _write(self, fn: Callable[[Any], T]) -> T:
        self.writes += 1
        return await super()._write(fn)


async def _runner_and_session(service: Any, replies: list[str]) -> tuple[Runner, Any]:
    """A runner of a bot answering ``replies`` in turn, and a new session of user u."""
    runner = Runner(
        app_name="app",
        agent=LlmAgent(name="bot", model=ScriptedModel(replies)),
        session_service=service,
    )
    return runner, await service.create_session(app_name="app", user_id="u")


async def _turn(runner: Runner, session_id: str, text: str) -> list[Event]:
    return [
        e
        async for e in runner.run_async(
            user_id="u", session_id=session_id, new_message=types.UserContent(text)
        )
    ]


async def test_a_sqlite_turn_is_three_write_transactions(tmp_path: Path) -> None:
    service = CountingSqlite(tmp_path / "s.db")
    runner, session = await _runner_and_session(service, ["one", "two"])

    for text in ("first", "second"):
        service.writes = 0
        events = await _turn(runner, session.id, text)
        # claim + user message, the answer, the release
        assert service.writes == 3
        assert [e.author for e in events] == ["bot"]

    stored = await service.get_session(app_name="app", user_id="u", session_id=session.id)
    assert [(e.author, e.text) for e in stored.events] == [
        ("user", "first"),
        ("bot", "one"),
        ("user", "second"),
        ("bot", "two"),
    ]
    await service.close()


async def test_a_busy_session_gets_no_user_message(tmp_path: Path) -> None:
    service = SqliteSessionService(tmp_path / "s.db")
    runner, session = await _runner_and_session(service, ["answer"])
    other = await service.get_session(app_name="app", user_id="u", session_id=session.id)
    assert other is not None

    async with service.turn(other, invocation_id="e-other"):  # another turn holds it
        with pytest.raises(SessionBusyError):
            await _turn(runner, session.id, "hello")

    stored = await service.get_session(app_name="app", user_id="u", session_id=session.id)
    assert stored is not None and stored.events == []
    assert [e.text for e in await _turn(runner, session.id, "hello")] == ["answer"]
    await service.close()


class FailingUserAppend(InMemorySessionService):
    """Refuses the first user event it is given."""

    failed = False

    async def append_event(self, session: Any, event: Event) -> Event:
        if event.author == "user" and not self.failed:
            self.failed = True
            raise RuntimeError("disk full")
        return await super().append_event(session, event)


async def test_a_failed_user_message_releases_the_session() -> None:
    service = FailingUserAppend()
    runner, session = await _runner_and_session(service, ["answer"])

    with pytest.raises(RuntimeError, match="disk full"):
        await _turn(runner, session.id, "hello")

    assert [e.text for e in await _turn(runner, session.id, "again")] == ["answer"]
    stored = await service.get_session(app_name="app", user_id="u", session_id=session.id)
    assert [e.text for e in stored.events] == ["again", "answer"]


class LoggingSqlite(SqliteSessionService):
    """A subclass with its own append_event."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.seen: list[str] = []

    async def append_event(self, session: Any, event: Event) -> Event:
        self.seen.append(event.author)
        return await super().append_event(session, event)


async def test_an_overridden_append_event_sees_the_user_message(tmp_path: Path) -> None:
    service = LoggingSqlite(tmp_path / "s.db")
    runner, session = await _runner_and_session(service, ["answer"])

    await _turn(runner, session.id, "hello")

    assert service.seen == ["user", "bot"]
    await service.close()
