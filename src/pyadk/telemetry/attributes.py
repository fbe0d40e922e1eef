"""Span attribute names and the JSON that content attributes carry.

Names follow the OpenTelemetry GenAI semantic conventions (``gen_ai.*``, ``error.type``)
where one exists. google-adk's ids and content attributes (``gcp.vertex.agent.*``) are
kept under their ADK names, so tools written for ADK's traces (its web UI's
``/debug/trace`` views) read pyadk's. What has no convention is under ``pyadk.*``.
"""

from __future__ import annotations

import json
import os
from typing import Any

from pydantic import BaseModel

# OpenTelemetry GenAI semantic conventions.
GEN_AI_OPERATION_NAME = "gen_ai.operation.name"
GEN_AI_AGENT_NAME = "gen_ai.agent.name"
GEN_AI_AGENT_DESCRIPTION = "gen_ai.agent.description"
GEN_AI_CONVERSATION_ID = "gen_ai.conversation.id"
GEN_AI_REQUEST_MODEL = "gen_ai.request.model"
GEN_AI_REQUEST_TEMPERATURE = "gen_ai.request.temperature"
GEN_AI_REQUEST_TOP_P = "gen_ai.request.top_p"
GEN_AI_REQUEST_TOP_K = "gen_ai.request.top_k"
GEN_AI_REQUEST_MAX_TOKENS = "gen_ai.request.max_tokens"
GEN_AI_RESPONSE_MODEL = "gen_ai.response.model"
GEN_AI_RESPONSE_FINISH_REASONS = "gen_ai.response.finish_reasons"
GEN_AI_USAGE_INPUT_TOKENS = "gen_ai.usage.input_tokens"
GEN_AI_USAGE_OUTPUT_TOKENS = "gen_ai.usage.output_tokens"
GEN_AI_TOOL_NAME = "gen_ai.tool.name"
GEN_AI_TOOL_DESCRIPTION = "gen_ai.tool.description"
GEN_AI_TOOL_TYPE = "gen_ai.tool.type"
GEN_AI_TOOL_CALL_ID = "gen_ai.tool.call.id"
ERROR_TYPE = "error.type"

# google-adk's attributes (ids, and the request/response JSON its web UI shows).
ADK_INVOCATION_ID = "gcp.vertex.agent.invocation_id"
ADK_SESSION_ID = "gcp.vertex.agent.session_id"
ADK_EVENT_ID = "gcp.vertex.agent.event_id"
ADK_LLM_REQUEST = "gcp.vertex.agent.llm_request"
ADK_LLM_RESPONSE = "gcp.vertex.agent.llm_response"
ADK_TOOL_CALL_ARGS = "gcp.vertex.agent.tool_call_args"
ADK_TOOL_RESPONSE = "gcp.vertex.agent.tool_response"
ADK_DATA = "gcp.vertex.agent.data"
"""The contents a live run sent to its model connection (``send_data`` span)."""

# pyadk's own.
APP_NAME = "pyadk.app_name"
AGENT_TYPE = "pyadk.agent.type"
AGENT_OUTCOME = "pyadk.agent.outcome"
"""How the agent run ended: success, failure, skipped, escalated, cancelled, timed_out."""
AGENT_OUTCOME_REASON = "pyadk.agent.outcome.reason"
INVOCATION_EVENTS = "pyadk.invocation.events"
"""Events the turn yielded."""
LLM_REQUEST_CONTENTS = "pyadk.llm.request.contents"
"""Contents (history entries) sent to the model."""
LLM_REQUEST_SIZE = "pyadk.llm.request.size"
"""Characters of the request's JSON (as in ``gcp.vertex.agent.llm_request``, untruncated)."""
LLM_RESPONSE_SIZE = "pyadk.llm.response.size"
"""Characters of the last response's JSON."""
LLM_ERROR_MESSAGE = "pyadk.llm.error_message"
TOOL_LONG_RUNNING = "pyadk.tool.long_running"
TOOL_CALLS = "pyadk.tool.calls"
"""Calls answered by an ``execute_tool (merged)`` span's event."""
INTERRUPTED = "pyadk.interrupted"
"""``cancelled`` (the task was cancelled) or ``closed`` (the caller stopped reading)."""

CAPTURE_CONTENT_ENV = "PYADK_CAPTURE_MESSAGE_CONTENT_IN_SPANS"
"""Set to ``false`` to leave prompts, responses and tool arguments out of spans."""
ADK_CAPTURE_CONTENT_ENV = "ADK_CAPTURE_MESSAGE_CONTENT_IN_SPANS"
"""google-adk's name for the same switch (read when pyadk's is not set)."""

CONTENT_LIMIT = 16_384
"""Characters kept of one content attribute; longer JSON is cut and marked."""

EMPTY_JSON = "{}"


def capture_content() -> bool:
    """True unless message content is switched off for spans (see CAPTURE_CONTENT_ENV)."""
    value = os.environ.get(CAPTURE_CONTENT_ENV) or os.environ.get(ADK_CAPTURE_CONTENT_ENV)
    return value is None or value.strip().lower() not in ("false", "0", "no", "off")


def to_json(value: Any) -> str:
    """``value`` as JSON; models as their JSON dump, anything else unserializable by type."""
    return json.dumps(value, ensure_ascii=False, default=_jsonable)


def truncate(text: str) -> str:
    """``text`` cut to CONTENT_LIMIT characters, saying how long it was."""
    if len(text) <= CONTENT_LIMIT:
        return text
    return f"{text[:CONTENT_LIMIT]}...[truncated, {len(text)} characters]"


def llm_request_json(llm_request: Any) -> str:
    """The request as ADK's traces show it: model, config, contents without inline bytes."""
    config = llm_request.config
    payload = {
        "model": llm_request.model,
        "config": config.model_dump(mode="json", exclude_none=True, exclude={"response_schema"}),
        "contents": [
            {
                "role": content.role,
                "parts": [
                    part.model_dump(mode="json", exclude_none=True)
                    for part in content.parts or ()
                    if part.inline_data is None
                ],
            }
            for content in llm_request.contents
        ],
    }
    return to_json(payload)


def _jsonable(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", exclude_none=True)
    if isinstance(value, bytes | bytearray):
        return f"<{len(value)} bytes>"
    if isinstance(value, set | frozenset | tuple):
        return list(value)
    return f"<{type(value).__name__}>"
