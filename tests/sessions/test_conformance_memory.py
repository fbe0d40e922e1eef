"""The session conformance suite against InMemorySessionService."""

from __future__ import annotations

import pytest

from pyadk.events import Event
from pyadk.sessions import InMemorySessionService, StaleSessionError
from pyadk.testing.session_conformance import SessionServiceConformance


class TestInMemoryConformance(SessionServiceConformance):
    paginates = False

    async def make_service(self) -> InMemorySessionService:
        return InMemorySessionService()


async def test_in_memory_refuses_stale_session_objects():
    service = InMemorySessionService()
    session = await service.create_session(app_name="app", user_id="u")
    first = await service.get_session(app_name="app", user_id="u", session_id=session.id)
    second = await service.get_session(app_name="app", user_id="u", session_id=session.id)
    await service.append_event(first, Event(author="a"))
    with pytest.raises(StaleSessionError, match="seen 0 events, the store has 1"):
        await service.append_event(second, Event(author="b"))
    stored = await service.get_session(app_name="app", user_id="u", session_id=session.id)
    assert [e.author for e in stored.events] == ["a"]
    assert second.events == []
