"""Request bodies of the API server (camelCase JSON, snake_case also accepted)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator
from pydantic.alias_generators import to_camel

from pyadk import types
from pyadk.agents.budget import Budget
from pyadk.agents.run_config import RunConfig, StreamingMode
from pyadk.events.event import Event
from pyadk.sessions.state import State

MAX_LLM_CALLS_LIMIT = 100_000
"""The largest ``max_llm_calls`` a client may ask for (``/run`` bodies, ``/run_live``)."""


class _Request(BaseModel):
    # Unknown fields are ignored, as google-adk does: newer ADK clients send more.
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="ignore")


class RunOptions(_Request):
    """Per-run settings (a pyadk extension; unknown keys are rejected here)."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid")

    max_llm_calls: int | None = Field(default=None, ge=1, le=MAX_LLM_CALLS_LIMIT)
    record_outcomes: Literal["non_success", "all"] | None = None
    budget: Budget | None = None
    """Limits on this turn (``{"llmCalls": 5, "toolCalls": 10, "tokens": 20000,
    "wallTime": 30, "repeatedToolCalls": 2}``); reaching one ends it with a
    ``BUDGET_EXCEEDED`` event."""


class AgentRunRequest(_Request):
    """Body of ``POST /run``, ``/run_sse`` and ``/run_ui_events`` (ADK's AgentRunRequest)."""

    app_name: str = Field(min_length=1)
    user_id: str = Field(min_length=1)
    session_id: str = Field(min_length=1)
    new_message: types.Content | None = None
    streaming: bool = False
    state_delta: dict[str, Any] | None = None
    invocation_id: str | None = Field(default=None, min_length=1)
    """Resumes that interrupted invocation instead of starting a turn (no newMessage)."""
    run_options: RunOptions | None = None

    @field_validator("new_message")
    @classmethod
    def _has_parts(cls, value: types.Content | None) -> types.Content | None:
        if value is not None and not value.parts:
            raise ValueError(
                'newMessage needs at least one part, e.g. {"role": "user", "parts": '
                '[{"text": "hello"}]}'
            )
        return value

    @model_validator(mode="after")
    def _message_or_resume(self) -> AgentRunRequest:
        if self.invocation_id is None and self.new_message is None:
            raise ValueError(
                "newMessage is required (or invocationId, to resume an interrupted invocation)"
            )
        if self.invocation_id is not None and (self.new_message or self.state_delta):
            raise ValueError(
                "invocationId resumes an interrupted invocation: send it without "
                "newMessage and stateDelta"
            )
        return self

    def run_config(self, *, streaming: bool) -> RunConfig:
        """The RunConfig of this request."""
        options: dict[str, Any] = {}
        if self.run_options is not None:
            options = self.run_options.model_dump(exclude_none=True)
        mode = StreamingMode.SSE if streaming else StreamingMode.NONE
        return RunConfig(streaming_mode=mode, **options)


class CreateSessionRequest(_Request):
    """Body of ``POST /apps/{app}/users/{user}/sessions`` (all optional)."""

    session_id: str | None = Field(default=None, min_length=1, max_length=256)
    state: dict[str, Any] | None = None
    events: list[Event] | None = None
    """Events to import into the new session, in order."""


class UpdateSessionRequest(_Request):
    """Body of ``PATCH /apps/{app}/users/{user}/sessions/{id}`` (google-adk's
    UpdateSessionRequest): ``{"stateDelta": {...}}``, applied without running the agent."""

    state_delta: dict[str, Any]

    @field_validator("state_delta")
    @classmethod
    def _storable(cls, value: dict[str, Any]) -> dict[str, Any]:
        if not value:
            raise ValueError('stateDelta is empty: give the keys to set, e.g. {"topic": "tea"}')
        temp = sorted(key for key in value if key.startswith(State.TEMP_PREFIX))
        if temp:
            raise ValueError(
                f"temp: keys live for one invocation and are never stored, so a session "
                f"update cannot set them: {', '.join(temp)}"
            )
        return value


class LiveRequest(_Request):
    """A message of a ``/run_live`` client in text-turn mode (an agent whose model has
    no live connection): ``content`` runs a turn, ``close`` ends the connection.
    ``blob`` and the activity markers (audio and video input) are accepted by the schema
    but answered with an error. Live mode reads :class:`pyadk.agents.LiveRequest`."""

    content: types.Content | None = None
    blob: types.Blob | None = None
    activity_start: dict[str, Any] | None = None
    activity_end: dict[str, Any] | None = None
    close: bool = False
