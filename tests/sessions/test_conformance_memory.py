"""The session conformance suite against InMemorySessionService."""

from __future__ import annotations

import pytest

from pyadk.events import Event
from pyadk.sessions import InMemorySessionService, StaleSessionError
from pyadk.testing.session_conformance import SessionServiceConformance


class TestInMemoryConformance(SessionServiceConformance):
    checks_stale_sessions = False
    paginates = False

    async def make_service(self) -> InMemorySessionService:
        return InMemorySessionService()


@pytest.mark.xfail(
    reason="InMemorySessionService has no per-session sequence check yet: a session "
    "object that missed another writer's append still appends",
    strict=True,
)
async def test_in_memory_refuses_stale_session_objects():
    service = InMemorySessionService()
    session = await service.create_session(app_name="app", user_id="u")
    first = await service.get_session(app_name="app", user_id="u", session_id=session.id)
    second = await service.get_session(app_name="app", user_id="u", session_id=session.id)
    await service.append_event(first, Event(author="a"))
    with pytest.raises(StaleSessionError):
        await service.append_event(second, Event(author="b"))
