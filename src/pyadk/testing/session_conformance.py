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

from pyadk.testing._conformance_concurrency import ConcurrencyConformance
from pyadk.testing._conformance_core import CoreConformance, delta_event, text_event
from pyadk.testing._conformance_leases import LeaseConformance


class SessionServiceConformance(CoreConformance, ConcurrencyConformance, LeaseConformance):
    """Every conformance test; subclasses implement :meth:`make_service`."""


__all__ = ["SessionServiceConformance", "delta_event", "text_event"]
