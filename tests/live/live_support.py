"""Helpers of the live-mode tests: a runner on a fresh session, and a driver that runs
``Runner.run_live`` and closes the queue after a number of model turns."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from pyadk import types
from pyadk.agents import BaseAgent, LiveRequestQueue, RunConfig
from pyadk.events.event import Event
from pyadk.plugins.base_plugin import BasePlugin
from pyadk.runners import Runner
from pyadk.sessions.in_memory_session_service import InMemorySessionService

TEXT = RunConfig(response_modalities=[types.Modality.TEXT])


def user(text: str) -> types.Content:
    return types.Content(role="user", parts=[types.Part(text=text)])


@dataclass
class LiveHarness:
    """A runner and a session to run live on."""

    runner: Runner
    session_id: str
    user_id: str = "u"

    async def run(
        self,
        queue: LiveRequestQueue,
        *,
        close_after_turns: int | None = None,
        on_event: Callable[[Event], Awaitable[None] | None] | None = None,
        run_config: RunConfig | None = TEXT,
        timeout: float = 5.0,
    ) -> list[Event]:
        """Runs live until the run ends; closes ``queue`` after ``close_after_turns``
        ``turn_complete`` events (if given)."""
        events: list[Event] = []
        turns = 0
        async with asyncio.timeout(timeout):
            async for event in self.runner.run_live(
                user_id=self.user_id,
                session_id=self.session_id,
                live_request_queue=queue,
                run_config=run_config,
            ):
                events.append(event)
                if on_event is not None:
                    result = on_event(event)
                    if result is not None:
                        await result
                if event.turn_complete:
                    turns += 1
                    if close_after_turns is not None and turns >= close_after_turns:
                        queue.close()
        return events

    async def stored(self) -> list[Event]:
        session = await self.runner.session_service.get_session(
            app_name=self.runner.app_name, user_id=self.user_id, session_id=self.session_id
        )
        assert session is not None
        return session.events

    async def state(self) -> dict[str, Any]:
        session = await self.runner.session_service.get_session(
            app_name=self.runner.app_name, user_id=self.user_id, session_id=self.session_id
        )
        assert session is not None
        return dict(session.state)


def texts(events: Sequence[Event], *, partial: bool | None = False) -> list[str]:
    """The texts of ``events`` (non-partial ones by default; ``partial=None``: all)."""
    found = []
    for event in events:
        if partial is not None and bool(event.partial) != partial:
            continue
        if event.content is not None and event.content.parts:
            text = "".join(p.text or "" for p in event.content.parts)
            if text:
                found.append(text)
    return found


async def make_harness(
    agent: BaseAgent,
    *,
    plugins: Sequence[BasePlugin] | None = None,
    state: dict[str, Any] | None = None,
) -> LiveHarness:
    """A runner for ``agent`` (in-memory services) and a new session."""
    service = InMemorySessionService()
    runner = Runner(app_name="live_app", agent=agent, session_service=service, plugins=plugins)
    session = await service.create_session(app_name="live_app", user_id="u", state=state)
    return LiveHarness(runner, session.id)
