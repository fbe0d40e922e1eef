"""An incoming A2A request -> the arguments of ``Runner.run_async``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from a2a.server.agent_execution import RequestContext
from pydantic import BaseModel, ConfigDict

from pyadk import types
from pyadk.a2a.converters.part_converter import (
    A2APartToGenAIPartConverter,
    convert_a2a_part_to_genai_part,
)
from pyadk.agents.run_config import RunConfig

A2A_METADATA_KEY = "a2a_metadata"
"""RunConfig.custom_metadata key holding the A2A request's metadata."""

ANONYMOUS_USER_PREFIX = "A2A_USER_"


class AgentRunRequest(BaseModel):
    """Keyword arguments for ``Runner.run_async`` built from an A2A request."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    user_id: str | None = None
    session_id: str | None = None
    invocation_id: str | None = None
    new_message: types.Content | None = None
    state_delta: dict[str, Any] | None = None
    run_config: RunConfig | None = None


A2ARequestToAgentRunRequestConverter = Callable[
    [RequestContext, A2APartToGenAIPartConverter], AgentRunRequest
]


def _user_id(request: RequestContext) -> str:
    # Only a user the A2A server authenticated names the pyadk user; anyone else runs
    # as an anonymous user scoped to the A2A conversation.
    user = request.call_context.user if request.call_context else None
    if user is not None and user.is_authenticated and user.user_name:
        return str(user.user_name)
    return f"{ANONYMOUS_USER_PREFIX}{request.context_id}"


def convert_a2a_request_to_agent_run_request(
    request: RequestContext,
    part_converter: A2APartToGenAIPartConverter = convert_a2a_part_to_genai_part,
) -> AgentRunRequest:
    """The run arguments for ``request``: the A2A context id is the session id."""
    if request.message is None:
        raise ValueError("An A2A request must carry a message")
    parts: list[types.Part] = []
    for a2a_part in request.message.parts:
        converted = part_converter(a2a_part)
        if isinstance(converted, list):
            parts.extend(converted)
        elif converted is not None:
            parts.append(converted)
    custom_metadata: dict[str, Any] = {}
    if request.metadata:
        custom_metadata[A2A_METADATA_KEY] = dict(request.metadata)
    return AgentRunRequest(
        user_id=_user_id(request),
        session_id=request.context_id,
        new_message=types.Content(role="user", parts=parts),
        run_config=RunConfig(custom_metadata=custom_metadata),
    )
