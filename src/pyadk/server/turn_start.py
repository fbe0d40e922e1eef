"""TurnStart: lets a streaming route wait until its run holds the session.

A stream's status line goes out once. So that a busy session is an HTTP 409, not
a stream that fails at once, the streaming routes run the agent in a task and wait
for its turn to begin before they answer. A turn has begun when the Runner holds
the session's lease and has stored the user's message: the runner calls the
``before_run_callback`` of :class:`TurnStartPlugin` (the first plugin of every
server runner), which tells the :class:`TurnStart` bound to the task iterating
the run. The first event of the run, or the end of the run, also settles it.

A ``SessionConflictError`` (``SessionBusyError``, ``StaleSessionError``) raised
before the turn began means nothing was written: the route answers 409. Anything
later is reported inside the stream.
"""

from __future__ import annotations

import asyncio
from contextvars import ContextVar
from typing import TYPE_CHECKING

from fastapi import HTTPException

from pyadk.plugins.base_plugin import BasePlugin
from pyadk.sessions.errors import SessionConflictError

if TYPE_CHECKING:
    from pyadk import types
    from pyadk.agents.invocation_context import InvocationContext

_CURRENT: ContextVar[TurnStart | None] = ContextVar("pyadk_server_turn_start", default=None)


def conflict_error(error: SessionConflictError) -> HTTPException:
    """HTTP 409 for a refused turn, with ``Retry-After`` when the lease says when."""
    retry_after = getattr(error, "retry_after", None)
    headers = {"Retry-After": str(max(1, round(retry_after)))} if retry_after else None
    return HTTPException(status_code=409, detail=str(error), headers=headers)


class TurnStart:
    """Whether a run's turn began, or the run was refused before it did."""

    def __init__(self) -> None:
        self._settled = asyncio.Event()
        self.began = False
        self.refusal: SessionConflictError | None = None

    def bind(self) -> None:
        """Makes this the TurnStart of the current task: call it first in the task that
        iterates the run."""
        _CURRENT.set(self)

    def begin(self) -> None:
        """The turn holds the session (or produced an event)."""
        self.began = True
        self._settled.set()

    def end(self, error: BaseException | None = None) -> None:
        """The run ended, with ``error`` if it raised one."""
        if not self.began and isinstance(error, SessionConflictError):
            self.refusal = error
        self._settled.set()

    async def wait(self) -> None:
        """Returns once the turn began or the run ended; raises HTTP 409 (an
        ``HTTPException``) when the session was busy or changed before the turn began."""
        await self._settled.wait()
        if self.refusal is not None:
            raise conflict_error(self.refusal)


class TurnStartPlugin(BasePlugin):
    """Tells the task's :class:`TurnStart` that the turn began (changes nothing else)."""

    NAME = "pyadk_server_turn_start"

    def __init__(self) -> None:
        super().__init__(name=self.NAME)

    async def before_run_callback(
        self, *, invocation_context: InvocationContext
    ) -> types.Content | None:
        turn = _CURRENT.get()
        if turn is not None:
            turn.begin()
        return None
