"""Deterministic models for tests: ScriptedModel (replies in order) and FunctionModel."""

from __future__ import annotations

import inspect
from collections.abc import AsyncGenerator, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import Field

from pyadk import types
from pyadk.models.base_llm import BaseLlm
from pyadk.models.llm_request import LlmRequest
from pyadk.models.llm_response import LlmResponse


class ScriptExhaustedError(AssertionError):
    """A ScriptedModel was called more times than it has replies."""


@dataclass(frozen=True)
class Stream:
    """A reply streamed in chunks (text or parts); aggregated when not streaming."""

    chunks: Sequence[str | types.Part]
    usage: types.UsageMetadata | None = None


Reply = Any
"""str | Part | list[Part] | Content | LlmResponse | Stream | BaseException."""


def function_call(
    name: str, args: dict[str, Any] | None = None, id: str | None = None
) -> types.Part:
    """A function-call part for a scripted reply."""
    return types.Part(function_call=types.FunctionCall(name=name, args=args or {}, id=id))


def _content(reply: Reply) -> types.Content:
    if isinstance(reply, types.Content):
        return reply
    if isinstance(reply, str):
        return types.Content(role="model", parts=[types.Part(text=reply)])
    if isinstance(reply, types.Part):
        return types.Content(role="model", parts=[reply])
    if isinstance(reply, list):
        return types.Content(
            role="model", parts=[types.Part(text=p) if isinstance(p, str) else p for p in reply]
        )
    return types.Content.model_validate(reply)


def _aggregate(chunks: Sequence[str | types.Part]) -> list[types.Part]:
    parts: list[types.Part] = []
    text: list[str] = []
    for chunk in chunks:
        if isinstance(chunk, str) or (chunk.text is not None and not chunk.thought):
            text.append(chunk if isinstance(chunk, str) else chunk.text or "")
        else:
            parts.append(chunk)
    return ([types.Part(text="".join(text))] if text else []) + parts


async def responses_for(reply: Reply, stream: bool) -> AsyncGenerator[LlmResponse, None]:
    """The LlmResponses a scripted reply produces, streamed or not."""
    if isinstance(reply, BaseException):
        raise reply
    if isinstance(reply, LlmResponse):
        yield reply
        return
    if isinstance(reply, Stream):
        if stream:
            for chunk in reply.chunks:
                yield LlmResponse(content=_content([chunk]), partial=True)
        yield LlmResponse(
            content=types.Content(role="model", parts=_aggregate(reply.chunks)),
            usage_metadata=reply.usage,
            finish_reason=types.FinishReason.STOP,
            turn_complete=True,
        )
        return
    yield LlmResponse(
        content=_content(reply), finish_reason=types.FinishReason.STOP, turn_complete=True
    )


class ScriptedModel(BaseLlm):
    """Answers each call with the next scripted reply and records every request.

    Replies: a string, a Part (e.g. :func:`function_call`), a list of parts, a
    Content, an LlmResponse, a :class:`Stream` of chunks, or an exception to raise.
    A call beyond the script raises :class:`ScriptExhaustedError`.
    """

    model: str = "scripted"
    replies: list[Any] = Field(default_factory=list)
    requests: list[LlmRequest] = Field(default_factory=list)

    def __init__(self, replies: Sequence[Reply] | None = None, **data: Any) -> None:
        super().__init__(replies=list(replies or []), **data)

    @property
    def call_count(self) -> int:
        """How many times the model was called."""
        return len(self.requests)

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        index = len(self.requests)
        self.requests.append(llm_request)
        if index >= len(self.replies):
            last = llm_request.contents[-1].parts if llm_request.contents else None
            raise ScriptExhaustedError(
                f"ScriptedModel {self.model!r} got call #{index + 1} but has only "
                f"{len(self.replies)} scripted replies. Last content of the request: {last!r}"
            )
        async for response in responses_for(self.replies[index], stream):
            yield response


class FunctionModel(BaseLlm):
    """Computes each reply with ``function(llm_request)`` (sync or async).

    The function returns any reply a :class:`ScriptedModel` accepts.
    """

    model: str = "function"
    function: Callable[[LlmRequest], Any]
    requests: list[LlmRequest] = Field(default_factory=list)

    def __init__(self, function: Callable[[LlmRequest], Any] | None = None, **data: Any):
        if function is not None:
            data["function"] = function
        super().__init__(**data)

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        self.requests.append(llm_request)
        reply = self.function(llm_request)
        if inspect.isawaitable(reply):
            reply = await reply
        async for response in responses_for(reply, stream):
            yield response
