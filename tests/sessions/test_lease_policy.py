"""The lease policy given to a service's constructor is checked there."""

from __future__ import annotations

from pathlib import Path

import pytest

from pyadk.sessions import DatabaseSessionService, InMemorySessionService, SqliteSessionService


@pytest.mark.parametrize("kind", ["memory", "sqlite", "database"])
def test_a_bad_lease_policy_is_refused_when_the_service_is_made(kind: str, tmp_path: Path):
    def make(**policy: float) -> object:
        if kind == "memory":
            return InMemorySessionService(**policy)
        if kind == "sqlite":
            return SqliteSessionService(tmp_path / "s.db", **policy)
        return DatabaseSessionService(f"sqlite+aiosqlite:///{tmp_path / 's.db'}", **policy)

    with pytest.raises(ValueError, match="ttl must be positive, got -5"):
        make(lease_ttl=-5)
    with pytest.raises(ValueError, match=r"wait must be 0 or more seconds, got -0\.5"):
        make(lease_wait=-0.5)
    service = make(lease_ttl=5, lease_wait=2)
    assert (service.lease_ttl, service.lease_wait) == (5, 2)  # type: ignore[attr-defined]
