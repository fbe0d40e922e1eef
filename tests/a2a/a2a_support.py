"""Helpers of the A2A tests: a caller-side chat over a pyadk Runner, event readers."""

from __future__ import annotations

from typing import Any

from pyadk import types
from pyadk.events import Event
from pyadk.runners import InMemoryRunner
from pyadk.testing import ScriptedModel


class Chat:
    """One session of a pyadk Runner; ``say`` runs a turn and returns its events."""

    def __init__(self, agent: Any) -> None:
        self.runner = InMemoryRunner(agent=agent, app_name="caller")
        self.session_id: str | None = None

    async def send(self, message: types.Content) -> list[Event]:
        if self.session_id is None:
            session = await self.runner.session_service.create_session(
                app_name="caller", user_id="u"
            )
            self.session_id = session.id
        return [
            event
            async for event in self.runner.run_async(
                user_id="u", session_id=self.session_id, new_message=message
            )
        ]

    async def say(self, text: str) -> list[Event]:
        return await self.send(types.Content(role="user", parts=[types.Part.from_text(text=text)]))


def answers(events: list[Event]) -> list[str]:
    """The non-thought texts of the events (what a user is shown)."""
    return [
        part.text
        for event in events
        if event.content and not event.partial
        for part in event.content.parts or []
        if part.text and not part.thought
    ]


def meta(event: Event, key: str) -> Any:
    return (event.custom_metadata or {}).get("a2a:" + key)


def user_texts(model: ScriptedModel, call: int = -1) -> list[str]:
    contents = model.requests[call].contents
    return [p.text for c in contents if c.role == "user" for p in c.parts or [] if p.text]
