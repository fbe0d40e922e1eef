"""A conformance suite for session services: one set of tests, run against every backend.

Subclass :class:`SessionServiceConformance` in a test module, under a name pytest
collects, and say how to make the service::

    from pyadk.sessions import SqliteSessionService
    from pyadk.testing.session_conformance import SessionServiceConformance

    class TestMySqlite(SessionServiceConformance):
        @pytest.fixture(autouse=True)
        def _db(self, tmp_path):
            self.path = tmp_path / "sessions.db"

        async def make_service(self):
            return SqliteSessionService(self.path)

        def service_uri(self):  # enables the two-process and kill -9 tests
            return f"sqlite:///{self.path}"

Every test uses a fresh app name, so the services of one class may share a database.
Set ``checks_stale_sessions = False``, ``paginates = False`` or ``leases_turns = False``
for services without those features: the tests that need them are skipped with a
reason.
"""

from __future__ import annotations

from pyadk import types
from pyadk.events.event import Event
from pyadk.events.event_actions import EventActions, EventCompaction
from pyadk.sessions.base_session_service import BaseSessionService
from pyadk.testing._conformance_concurrency import ConcurrencyConformance
from pyadk.testing._conformance_core import CoreConformance, delta_event, dumped, text_event
from pyadk.testing._conformance_leases import LeaseConformance


class SessionServiceConformance(CoreConformance, ConcurrencyConformance, LeaseConformance):
    """Every conformance test; subclasses implement :meth:`make_service`."""

    async def test_compaction_events_round_trip(
        self, service: BaseSessionService, app: str
    ) -> None:
        session = await service.create_session(app_name=app, user_id="u")
        first = text_event("hello", author="user")
        summary = types.Content(role="model", parts=[types.Part(text="the user said hello")])
        compaction = Event(
            author="user",
            invocation_id="compaction-1",
            actions=EventActions(
                compaction=EventCompaction(
                    start_timestamp=first.timestamp,
                    end_timestamp=first.timestamp,
                    compacted_content=summary,
                )
            ),
            usage_metadata=types.UsageMetadata(prompt_token_count=12),
        )
        for event in (first, compaction):
            await service.append_event(session, event)
        got = await self.reload(service, session)
        assert dumped(got.events) == dumped([first, compaction])
        loaded = got.events[1].actions.compaction
        assert loaded is not None and loaded.compacted_content == summary


__all__ = ["SessionServiceConformance", "delta_event", "text_event"]
