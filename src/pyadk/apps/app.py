"""App: an agent application (root agent, plugins and app-wide configuration)."""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, InstanceOf, model_validator

from pyadk.agents.base_agent import BaseAgent
from pyadk.apps._configs import EventsCompactionConfig, ResumabilityConfig
from pyadk.plugins.base_plugin import BasePlugin

__all__ = ["App", "EventsCompactionConfig", "ResumabilityConfig", "validate_app_name"]

_APP_NAME = re.compile(r"^[a-zA-Z][a-zA-Z0-9_-]*$")


def validate_app_name(name: str) -> None:
    """Raises ValueError unless ``name`` starts with a letter and holds only letters,
    digits, ``_`` and ``-`` (and is not ``user``, the author name of user events)."""
    if not _APP_NAME.match(name):
        raise ValueError(
            f"Invalid app name {name!r}: it must start with a letter and contain only "
            "letters, digits, underscores and hyphens."
        )
    if name == "user":
        raise ValueError("Invalid app name 'user': it is reserved for the end user's events.")


class App(BaseModel):
    """An agent application: what ``Runner(app=...)`` runs.

    ``root_agent`` answers the user's messages, ``plugins`` apply to every agent of the
    app, and ``events_compaction_config`` makes the runner summarise older events after
    a turn. ``context_cache_config`` and ``resumability_config`` are accepted and kept
    for source compatibility with google-adk; pyadk does not act on them.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True, extra="forbid")

    name: str
    """The app name sessions are stored under."""
    root_agent: InstanceOf[BaseAgent] | None = None
    """The agent that answers the user (required)."""
    plugins: list[InstanceOf[BasePlugin]] = Field(default_factory=list)
    """Plugins for every agent of the app."""
    events_compaction_config: EventsCompactionConfig | None = None
    """When the runner summarises older events (none: never)."""
    context_cache_config: Any | None = None
    """google-adk's provider context-cache settings; kept, not acted on by pyadk."""
    resumability_config: ResumabilityConfig | None = None
    """google-adk's resumability switch; kept, not needed: pyadk resumes any interrupted
    invocation (``Runner.run_async(invocation_id=...)``)."""

    @model_validator(mode="after")
    def _validate(self) -> App:
        validate_app_name(self.name)
        if self.root_agent is None:
            raise ValueError(f"App {self.name!r}: root_agent must be provided.")
        config = self.events_compaction_config
        if config is not None and config.summarizer is None:
            from pyadk.agents.llm_agent import LlmAgent

            if not isinstance(self.root_agent, LlmAgent):
                raise ValueError(
                    f"App {self.name!r}: events compaction summarises with the root agent's "
                    f"model, but root agent {self.root_agent.name!r} is not an LlmAgent; set "
                    "EventsCompactionConfig(summarizer=LlmEventSummarizer(llm=...))."
                )
        return self
