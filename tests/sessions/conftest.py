"""Fixtures for the durable session tests: a throwaway PostgreSQL server.

The server is started once per test run from the distribution's binaries (``.ci/run``
installs them) and removed at the end. Tests that need it are skipped, with the reason,
only when no PostgreSQL binaries exist on the machine.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from pyadk.testing.postgres_server import (
    PostgresNotFoundError,
    find_postgres_bin,
    throwaway_postgres,
)

SUPPORT = Path(__file__).parent / "support"  # helper modules of these tests
if str(SUPPORT) not in sys.path:
    sys.path.insert(0, str(SUPPORT))


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """The URL of a PostgreSQL server private to this test run."""
    try:
        find_postgres_bin()
    except PostgresNotFoundError as exc:
        pytest.skip(str(exc))
    with throwaway_postgres(fsync=False) as url:
        yield url
