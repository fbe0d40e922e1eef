"""FallbackLlm: the next model answers when one is rate-limited or down; never after a
partial answer; a failing model rests during its cooldown."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator
from typing import Any

import pytest

from pyadk import types
from pyadk.agents import LlmAgent, RetryPolicy
from pyadk.errors import BadRequestError, ModelOverloadedError, RateLimitError
from pyadk.models import (
    AllModelsFailedError,
    BaseLlm,
    FallbackLlm,
    LlmRequest,
    LlmResponse,
    OpenAIChat,
)
from pyadk.testing import TestRunner
from pyadk.testing.fixture_server import FixtureServer, json_response


class Scripted(BaseLlm):
    """Fails with ``errors`` (one per call, in order), then answers its own name."""

    errors: list[BaseException | None] = []
    chunks_before_error: int = 0
    seen: list[str | None] = []

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        self.seen.append(llm_request.model)
        error = self.errors.pop(0) if self.errors else None
        for index in range(self.chunks_before_error if error else 0):
            yield LlmResponse(content=types.ModelContent(f"part {index}"), partial=True)
        if error is not None:
            raise error
        yield LlmResponse(content=types.ModelContent(f"{self.model} answered"))


async def answers(llm: BaseLlm) -> list[LlmResponse]:
    request = LlmRequest(model=llm.model, contents=[types.UserContent("hi")])
    return [r async for r in llm.generate_content_async(request)]


async def test_the_next_model_answers_a_rate_limited_one() -> None:
    primary = Scripted(model="primary", errors=[RateLimitError("slow down", status_code=429)])
    backup = Scripted(model="backup")
    chain = FallbackLlm(models=[primary, backup])
    assert chain.model == "primary"
    [answer] = await answers(chain)
    assert answer.content.parts[0].text == "backup answered"
    assert answer.model_version == "backup"
    # Each model gets the request under its own name, not the chain's.
    assert (primary.seen, backup.seen) == (["primary"], ["backup"])
    [again] = await answers(chain)  # no cooldown: the primary is asked first again
    assert again.content.parts[0].text == "primary answered"


async def test_a_bad_request_is_not_a_reason_to_fall_back() -> None:
    primary = Scripted(model="primary", errors=[BadRequestError("bad schema", status_code=400)])
    backup = Scripted(model="backup")
    with pytest.raises(BadRequestError):
        await answers(FallbackLlm(models=[primary, backup]))
    assert backup.seen == []
    custom = FallbackLlm(
        models=[Scripted(model="p", errors=[BadRequestError("x")]), backup],
        fall_back_on=lambda error: True,
    )
    assert (await answers(custom))[0].content.parts[0].text == "backup answered"


async def test_no_fallback_after_part_of_an_answer_was_streamed() -> None:
    primary = Scripted(
        model="primary", errors=[ModelOverloadedError("gone")], chunks_before_error=2
    )
    backup = Scripted(model="backup")
    chain = FallbackLlm(models=[primary, backup])
    request = LlmRequest(model="primary", contents=[types.UserContent("hi")])
    got: list[LlmResponse] = []
    with pytest.raises(ModelOverloadedError):
        async for response in chain.generate_content_async(request, stream=True):
            got.append(response)
    assert [r.content.parts[0].text for r in got] == ["part 0", "part 1"]
    assert backup.seen == []


async def test_all_failing_is_one_error_that_lists_them_and_stays_retryable() -> None:
    chain = FallbackLlm(
        models=[
            Scripted(model="a", errors=[RateLimitError("429 a")]),
            Scripted(model="b", errors=[TimeoutError("slow b")]),
        ]
    )
    with pytest.raises(AllModelsFailedError) as failed:
        await answers(chain)
    assert [name for name, _ in failed.value.errors] == ["a", "b"]
    assert "a: RateLimitError: 429 a; b: TimeoutError: slow b" in str(failed.value)
    assert RetryPolicy().should_retry(failed.value)


async def test_a_failed_model_rests_during_its_cooldown() -> None:
    primary = Scripted(model="primary", errors=[RateLimitError("429")])
    backup = Scripted(model="backup")
    chain = FallbackLlm(models=[primary, backup], cooldown=60)
    await answers(chain)
    [answer] = await answers(chain)
    assert answer.content.parts[0].text == "backup answered"
    assert primary.seen == ["primary"]  # not asked again while resting
    backup.errors = [ModelOverloadedError("also down")]
    [last] = await answers(chain)  # the resting primary is still the last resort
    assert last.content.parts[0].text == "primary answered"


def test_models_are_given_as_objects_or_names() -> None:
    chain = FallbackLlm(models=["openai/gpt-x", Scripted(model="backup")])
    assert isinstance(chain.models[0], OpenAIChat) and chain.model == "openai/gpt-x"
    with pytest.raises(ValueError):
        FallbackLlm(models=[])


def _chat_completion(text: str) -> dict[str, Any]:
    return {
        "id": "c1",
        "object": "chat.completion",
        "created": 0,
        "model": "m",
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
        ],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }


async def test_an_agent_falls_back_between_two_real_http_servers() -> None:
    with FixtureServer() as down, FixtureServer() as up:
        down.enqueue(json_response({"error": {"message": "rate limited"}}, status=429))
        up.enqueue(json_response(_chat_completion("Hello from the backup.")))
        primary = OpenAIChat(model="primary", base_url=down.base_url, api_key="k", max_retries=0)
        backup = OpenAIChat(model="backup", base_url=up.base_url, api_key="k", max_retries=0)
        agent = LlmAgent(name="a", model=FallbackLlm(models=[primary, backup]))
        async with TestRunner(agent) as runner:
            events = await runner.run("hi")
        assert events[-1].text == "Hello from the backup."
        assert len(down.requests) == 1 and len(up.requests) == 1
        assert up.requests[0].json()["model"] == "backup"


async def test_a_longer_retry_after_extends_the_rest() -> None:
    primary = Scripted(model="primary", errors=[RateLimitError("429")])
    primary.errors[0].retry_after = 3600.0  # type: ignore[attr-defined]
    backup = Scripted(model="backup")
    chain = FallbackLlm(models=[primary, backup], cooldown=0.01)
    await answers(chain)
    await asyncio.sleep(0.05)  # past the cooldown, not past the provider's Retry-After
    [answer] = await answers(chain)
    assert answer.content.parts[0].text == "backup answered" and primary.seen == ["primary"]
