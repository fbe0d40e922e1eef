"""google-adk's side of the benchmark: its classes under the names the scenarios use.

Runs in the benchmark's own virtual environment (``benchmarks/.venv-adk``, made by
``benchmarks/run.py``) where google-adk 2.13.0, SQLAlchemy and aiosqlite are installed:
``benchmarks/.venv-adk/bin/python benchmarks/adapters/adk_side.py --scenario b``.
"""

from __future__ import annotations

import logging
import sys
import warnings
from importlib.metadata import version
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_common
from google.adk.agents import (
    LlmAgent,
    LoopAgent,
    ParallelAgent,
    SequentialAgent,
)
from google.adk.agents.run_config import RunConfig, StreamingMode
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_response import LlmResponse
from google.adk.runners import Runner
from google.adk.sessions import InMemorySessionService
from google.adk.tools import exit_loop
from google.genai import types

# Experimental-feature notices would otherwise be printed on every run.
warnings.filterwarnings("ignore")
logging.getLogger("google_adk").setLevel(logging.ERROR)


def _database(path: str) -> object:
    from google.adk.sessions.database_session_service import DatabaseSessionService

    return DatabaseSessionService(db_url=f"sqlite+aiosqlite:///{path}")


def _sqlite(path: str) -> object:
    from google.adk.sessions.sqlite_session_service import SqliteSessionService

    return SqliteSessionService(db_path=path)


SIDE = bench_common.Side(
    name="google-adk",
    version=version("google-adk"),
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
    sqlite_backends={"database": _database, "sqlite": _sqlite},
    import_snippet=(
        "from google.adk.agents import LlmAgent\nfrom google.adk.runners import InMemoryRunner"
    ),
)

if __name__ == "__main__":
    sys.exit(bench_common.main(SIDE))
