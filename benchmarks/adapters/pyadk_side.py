"""pyadk's side of the benchmark: its classes under the names the scenarios use.

Run one scenario: ``python benchmarks/adapters/pyadk_side.py --scenario b``
(see ``bench_common`` for the options). Runs in the interpreter that has pyadk.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_common

from pyadk import types
from pyadk.agents import (
    LlmAgent,
    LoopAgent,
    ParallelAgent,
    RunConfig,
    SequentialAgent,
    StreamingMode,
)
from pyadk.models import BaseLlm, LlmResponse
from pyadk.runners import Runner
from pyadk.sessions import InMemorySessionService
from pyadk.tools import exit_loop
from pyadk.version import __version__


def _sqlite_backends() -> tuple[dict[str, Any], str | None]:
    try:
        from pyadk.sessions.sqlite_session_service import SqliteSessionService
    except ImportError as exc:
        return {}, f"pyadk has no SQLite session service yet ({exc})"
    return {"sqlite": SqliteSessionService}, None


_backends, _skip = _sqlite_backends()

SIDE = bench_common.Side(
    name="pyadk",
    version=__version__,
    types=types,
    BaseLlm=BaseLlm,
    LlmResponse=LlmResponse,
    LlmAgent=LlmAgent,
    SequentialAgent=SequentialAgent,
    LoopAgent=LoopAgent,
    ParallelAgent=ParallelAgent,
    Runner=Runner,
    InMemorySessionService=InMemorySessionService,
    RunConfig=RunConfig,
    StreamingMode=StreamingMode,
    exit_loop=exit_loop,
    sqlite_backends=_backends,
    sqlite_skip_reason=_skip,
    import_snippet="from pyadk.agents import LlmAgent\nfrom pyadk.runners import InMemoryRunner",
)

if __name__ == "__main__":
    sys.exit(bench_common.main(SIDE))
