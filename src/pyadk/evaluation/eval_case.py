"""One evaluation case: a conversation of invocations with what was expected of each."""

from __future__ import annotations

from typing import Any

from pydantic import (
    ConfigDict,
    Field,
    SerializationInfo,
    SerializerFunctionWrapHandler,
    field_validator,
    model_serializer,
    model_validator,
)

from pyadk import types
from pyadk.evaluation.common import EvalBaseModel
from pyadk.evaluation.conversation_scenarios import ConversationScenario as ConversationScenario
from pyadk.evaluation.eval_rubrics import Rubric
from pyadk.evaluation.tool_fakes import ToolFake


class IntermediateData(EvalBaseModel):
    """What happened between the user's message and the final response."""

    tool_uses: list[types.FunctionCall] = Field(default_factory=list)
    """The tool calls, in the order they were made."""
    tool_responses: list[types.FunctionResponse] = Field(default_factory=list)
    """The tool results, in the order they came back."""
    intermediate_responses: list[tuple[str, list[types.Part]]] = Field(default_factory=list)
    """Text said on the way, as ``(author, parts)``: e.g. a sub-agent's answer."""


class InvocationEvent(EvalBaseModel):
    """One event of an invocation, as google-adk 2.x records intermediate data."""

    model_config = ConfigDict(extra="ignore")

    author: str
    content: types.Content | None = None


class InvocationEvents(EvalBaseModel):
    """google-adk 2.x's other form of intermediate data: the invocation's events."""

    invocation_events: list[InvocationEvent] = Field(default_factory=list)


class Invocation(EvalBaseModel):
    """One user message and the agent's answer to it."""

    invocation_id: str = ""
    user_content: types.Content
    final_response: types.Content | None = None
    intermediate_data: IntermediateData | InvocationEvents | None = None
    creation_timestamp: float = 0.0
    duration: float | None = None
    """Seconds the invocation took (google-adk 2.x records it; pyadk reads it only)."""
    model_duration: float | None = None
    tool_duration: float | None = None
    rubrics: list[Rubric] | None = None
    """Rubrics the rubric-based metrics check this invocation against."""
    app_details: dict[str, Any] | None = None


class SessionInput(EvalBaseModel):
    """The session an eval case starts from."""

    model_config = ConfigDict(extra="allow")

    app_name: str
    user_id: str
    session_id: str | None = None
    state: dict[str, Any] = Field(default_factory=dict)


class EvalCase(EvalBaseModel):
    """A conversation to replay against the agent and compare with its expectations, or
    a scenario a simulated user plays (one or the other, not both)."""

    model_config = ConfigDict(extra="allow")

    eval_id: str
    conversation: list[Invocation] = Field(default_factory=list)
    """The fixed conversation: user messages to send, with what is expected of each."""
    conversation_scenario: ConversationScenario | None = None
    """What a simulated user wants instead (see :mod:`pyadk.evaluation.simulation`)."""
    session_input: SessionInput | None = None
    creation_timestamp: float = 0.0
    tool_fakes: list[ToolFake] = Field(default_factory=list)
    """Results given to tool calls instead of running the tools (a pyadk extension)."""
    rubrics: list[Rubric] | None = None
    """Rubrics the rubric-based metrics check every invocation of the case against."""

    @field_validator("conversation", mode="before")
    @classmethod
    def _no_conversation(cls, value: Any) -> Any:
        return [] if value is None else value  # google-adk 2.x: a scenario case

    @model_validator(mode="after")
    def _conversation_or_scenario(self) -> EvalCase:
        if self.conversation and self.conversation_scenario is not None:
            raise ValueError(
                f"eval case {self.eval_id!r} has both a conversation and a "
                "conversation_scenario: give one"
            )
        return self

    @model_serializer(mode="wrap")
    def _scenario_without_conversation(
        self, handler: SerializerFunctionWrapHandler, info: SerializationInfo
    ) -> Any:
        data = handler(self)
        if self.conversation_scenario is not None and isinstance(data, dict):
            data.pop("conversation", None)  # google-adk reads a scenario case's as null
        return data


def get_all_tool_calls(
    intermediate_data: IntermediateData | InvocationEvents | None,
) -> list[types.FunctionCall]:
    """The tool calls of an invocation, in order (none without intermediate data)."""
    if intermediate_data is None:
        return []
    if isinstance(intermediate_data, IntermediateData):
        return list(intermediate_data.tool_uses)
    return [
        part.function_call
        for event in intermediate_data.invocation_events
        if event.content is not None
        for part in event.content.parts or ()
        if part.function_call is not None
    ]
