"""ExecutorContext: what an A2aAgentExecutor interceptor learns about the run."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyadk.runners import Runner


@dataclass
class ExecutorContext:
    """The app, user and session an A2A request runs in, and the runner running it."""

    app_name: str
    user_id: str
    session_id: str
    runner: Runner
