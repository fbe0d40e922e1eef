"""One evaluation case: a conversation of invocations with what was expected of each."""

from __future__ import annotations

from typing import Any

from pydantic import ConfigDict, Field

from pyadk import types
from pyadk.evaluation.common import EvalBaseModel


class IntermediateData(EvalBaseModel):
    """What happened between the user's message and the final response."""

    tool_uses: list[types.FunctionCall] = Field(default_factory=list)
    """The tool calls, in the order they were made."""
    tool_responses: list[types.FunctionResponse] = Field(default_factory=list)
    """The tool results, in the order they came back."""
    intermediate_responses: list[tuple[str, list[types.Part]]] = Field(default_factory=list)
    """Text said on the way, as ``(author, parts)``: e.g. a sub-agent's answer."""


class Invocation(EvalBaseModel):
    """One user message and the agent's answer to it."""

    invocation_id: str = ""
    user_content: types.Content
    final_response: types.Content | None = None
    intermediate_data: IntermediateData | None = None
    creation_timestamp: float = 0.0


class SessionInput(EvalBaseModel):
    """The session an eval case starts from."""

    model_config = ConfigDict(extra="allow")

    app_name: str
    user_id: str
    session_id: str | None = None
    state: dict[str, Any] = Field(default_factory=dict)


class EvalCase(EvalBaseModel):
    """A conversation to replay against the agent and compare with its expectations."""

    model_config = ConfigDict(extra="allow")

    eval_id: str
    conversation: list[Invocation] = Field(default_factory=list)
    session_input: SessionInput | None = None
    creation_timestamp: float = 0.0


def get_all_tool_calls(intermediate_data: IntermediateData | None) -> list[types.FunctionCall]:
    """The tool calls of an invocation (none when it has no intermediate data)."""
    return list(intermediate_data.tool_uses) if intermediate_data else []
