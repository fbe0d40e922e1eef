"""TestRunner: run an agent turn by turn in one in-memory session and inspect it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pyadk import types
from pyadk.agents.base_agent import BaseAgent
from pyadk.agents.run_config import RunConfig
from pyadk.events.event import Event
from pyadk.plugins.base_plugin import BasePlugin
from pyadk.runners import InMemoryRunner
from pyadk.sessions.session import Session


class TestRunner(InMemoryRunner):
    """An InMemoryRunner bound to one user and one session, for tests.

    ``await runner.run("hi")`` returns the turn's events; ``await runner.session()``
    returns the stored session.
    """

    __test__ = False  # not a pytest test class

    def __init__(
        self,
        agent: BaseAgent,
        *,
        app_name: str = "test_app",
        user_id: str = "test_user",
        session_id: str = "test_session",
        state: dict[str, Any] | None = None,
        plugins: Sequence[BasePlugin] | None = None,
    ) -> None:
        super().__init__(agent, app_name=app_name, plugins=plugins)
        self.user_id = user_id
        self.session_id = session_id
        self._initial_state = state
        self._created = False

    async def _ensure_session(self) -> None:
        if not self._created:
            await self.session_service.create_session(
                app_name=self.app_name,
                user_id=self.user_id,
                session_id=self.session_id,
                state=self._initial_state,
            )
            self._created = True

    async def run(  # type: ignore[override]
        self,
        message: str | types.Content | types.Part | None = None,
        *,
        state_delta: dict[str, Any] | None = None,
        run_config: RunConfig | None = None,
    ) -> list[Event]:
        """Runs one turn and returns every event it yielded (partials included)."""
        if isinstance(message, str | types.Part):
            message = types.UserContent(message)
        return await self._events(
            new_message=message, state_delta=state_delta, run_config=run_config
        )

    async def resume(
        self, invocation_id: str, *, run_config: RunConfig | None = None
    ) -> list[Event]:
        """Resumes an interrupted invocation (see ``Runner.run_async``); returns its events."""
        return await self._events(invocation_id=invocation_id, run_config=run_config)

    async def _events(self, **kwargs: Any) -> list[Event]:
        """Every event of a ``run_async`` call on this runner's session."""
        await self._ensure_session()
        events = self.run_async(user_id=self.user_id, session_id=self.session_id, **kwargs)
        return [event async for event in events]

    async def session(self) -> Session:
        """The stored session."""
        await self._ensure_session()
        session = await self.session_service.get_session(
            app_name=self.app_name, user_id=self.user_id, session_id=self.session_id
        )
        assert session is not None
        return session

    async def state(self) -> dict[str, Any]:
        """The stored session state."""
        return (await self.session()).state


def simplify_events(events: Sequence[Event]) -> list[tuple[str, Any]]:
    """(author, text | function call/response summary) for each event, for assertions.

    Text is stripped; calls look like ``call:name({...})``, responses
    ``response:name({...})``; several parts give a list.
    """
    out: list[tuple[str, Any]] = []
    for event in events:
        if not event.content or not event.content.parts:
            continue
        items = [_simplify_part(p) for p in event.content.parts]
        out.append((event.author, items[0] if len(items) == 1 else items))
    return out


def _simplify_part(part: types.Part) -> Any:
    if part.function_call is not None:
        return f"call:{part.function_call.name}({part.function_call.args or {}})"
    if part.function_response is not None:
        return f"response:{part.function_response.name}({part.function_response.response})"
    if part.text is not None:
        return part.text.strip()
    return part
