"""Turning the embedded model's output into pyadk responses."""

from __future__ import annotations

import json
import re
from typing import Any

from pyadk import types
from pyadk.models.llm_response import LlmResponse
from pyadk.models.local._runtime import Completion
from pyadk.models.local._schema import OutputPlan

_TAGGED = re.compile(r"^\s*<tool_call>\s*(.*?)\s*(?:</tool_call>\s*)?$", re.DOTALL)
_FINISH = {
    "stop": types.FinishReason.STOP,
    "length": types.FinishReason.MAX_TOKENS,
}


class MalformedCallError(ValueError):
    """The output looked like a function call but was not a valid one."""


def looks_like_call(text: str) -> bool:
    """True when the output starts like JSON or a ``<tool_call>`` tag."""
    stripped = text.lstrip()
    return stripped.startswith(("{", "<tool_call>"))


def parse_call(text: str, callable_names: list[str]) -> types.FunctionCall | None:
    """The function call in ``text``, None when it is not a call of a declared function.

    Raises MalformedCallError when ``text`` is in ``<tool_call>`` tags but not a valid
    call, or is unparseable JSON.
    """
    tagged = _TAGGED.match(text)
    body = tagged.group(1) if tagged else text.strip()
    try:
        value: Any = json.loads(body)
    except json.JSONDecodeError as error:
        raise MalformedCallError(f"Unparseable function call {body[:200]!r}: {error}") from error
    if (
        isinstance(value, dict)
        and set(value) == {"name", "arguments"}
        and value["name"] in callable_names
        and isinstance(value["arguments"], dict)
    ):
        return types.FunctionCall(name=value["name"], args=value["arguments"])
    if tagged:
        raise MalformedCallError(f"Not a call of a declared function: {body[:200]!r}")
    return None


def usage_of(completion: Completion) -> types.GenerateContentResponseUsageMetadata:
    """Token counts of a completion."""
    return types.GenerateContentResponseUsageMetadata(
        prompt_token_count=completion.prompt_tokens,
        candidates_token_count=completion.completion_tokens,
        total_token_count=completion.prompt_tokens + completion.completion_tokens,
        cached_content_token_count=completion.cached_tokens or None,
    )


def final_response(completion: Completion, plan: OutputPlan, model_version: str) -> LlmResponse:
    """The (non-partial) response for a finished completion."""
    usage = usage_of(completion)
    finish = _FINISH.get(completion.finish_reason, types.FinishReason.OTHER)
    text = completion.text
    if plan.callable_names and (looks_like_call(text) or not plan.constraint.allow_text):
        try:
            call = parse_call(text, plan.callable_names)
        except MalformedCallError as error:
            if not plan.json_answer:
                return LlmResponse(
                    error_code=types.FinishReason.MALFORMED_FUNCTION_CALL.value,
                    error_message=str(error),
                    finish_reason=types.FinishReason.MALFORMED_FUNCTION_CALL,
                    usage_metadata=usage,
                    model_version=model_version,
                )
            call = None
        if call is not None:
            return LlmResponse(
                content=types.Content(role="model", parts=[types.Part(function_call=call)]),
                finish_reason=finish,
                usage_metadata=usage,
                model_version=model_version,
            )
    if plan.json_answer:
        text = text.strip()
    return LlmResponse(
        content=types.Content(role="model", parts=[types.Part(text=text)]),
        finish_reason=finish,
        usage_metadata=usage,
        model_version=model_version,
    )


class PartialText:
    """Decides, from the first characters, whether streamed output is answer text.

    Text (or a JSON answer when no call is possible) is passed through as it arrives;
    output that may be a function call is held back for the final response.
    """

    def __init__(self, plan: OutputPlan) -> None:
        self._plan = plan
        self._buffer = ""
        self._decided: bool | None = None if plan.callable_names else True

    def feed(self, delta: str) -> str:
        """The text of ``delta`` to emit as a partial response ('' to hold it back)."""
        if self._decided is None:
            self._buffer += delta
            if not self._buffer.strip():
                return ""
            self._decided = self._plan.constraint.allow_text and not looks_like_call(self._buffer)
            delta, self._buffer = self._buffer, ""
        return delta if self._decided else ""
