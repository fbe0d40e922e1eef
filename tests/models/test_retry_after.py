"""Retry-After: what providers ask to wait, read from their answers and honoured by
RetryPolicy (waits at least that long; gives up at once when it is too long)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from email.utils import formatdate
from typing import Any

import httpx
import pytest

from pyadk.agents import LlmAgent, RetryPolicy, RunConfig, StreamingMode
from pyadk.agents import retry_policy as retry_module
from pyadk.errors import (
    BadRequestError,
    ModelError,
    ModelOverloadedError,
    RateLimitError,
)
from pyadk.models import Gemini, LlmRequest, OpenAIChat
from pyadk.models._errors import error_for_status, retry_after_seconds
from pyadk.testing import TestRunner
from pyadk.testing.fixture_server import FixtureServer, json_response
from pyadk.testing.model_conformance import OpenAIWire, generate

NOW = 1_700_000_000.0

# -- reading the headers ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({"retry-after": "3"}, 3.0),
        ({"Retry-After": "0"}, 0.0),
        ({"retry-after": " 1.5 "}, 1.5),  # decimals are not standard, but servers send them
        ({"retry-after-ms": "250"}, 0.25),
        ({"Retry-After-Ms": "250", "Retry-After": "1"}, 0.25),  # the precise one wins
        ({"retry-after-ms": "soon", "retry-after": "2"}, 2.0),  # an invalid one is skipped
        ({"retry-after-ms": "-5", "retry-after": "2"}, 2.0),
    ],
)
def test_seconds_and_milliseconds(headers: dict[str, str], expected: float) -> None:
    assert retry_after_seconds(headers) == pytest.approx(expected)


def test_an_http_date_is_the_time_left_until_then() -> None:
    in_30s = formatdate(NOW + 30, usegmt=True)  # "Tue, 14 Nov 2023 22:13:50 GMT"
    assert retry_after_seconds({"retry-after": in_30s}, now=NOW) == pytest.approx(30)
    an_hour_ago = formatdate(NOW - 3600, usegmt=True)
    assert retry_after_seconds({"retry-after": an_hour_ago}, now=NOW) == 0.0
    unknown_zone = formatdate(NOW + 10)  # "... -0000": UTC, the sender's zone unknown
    assert retry_after_seconds({"retry-after": unknown_zone}, now=NOW) == pytest.approx(10)


def test_an_http_date_without_now_is_relative_to_the_clock() -> None:
    wait = retry_after_seconds({"retry-after": formatdate(usegmt=True)})
    assert wait is not None and 0.0 <= wait <= 1.0


@pytest.mark.parametrize(
    "value", ["", "soon", "-1", "nan", "inf", "-inf", "1e999", "Tue, 99 Foo 2023 99:99:99 GMT"]
)
def test_invalid_values_are_ignored(value: str) -> None:
    assert retry_after_seconds({"retry-after": value}, now=NOW) is None
    assert retry_after_seconds({"retry-after-ms": value}, now=NOW) is None


@pytest.mark.parametrize("headers", [None, {}, {"x-ratelimit-reset": "3"}, "not headers"])
def test_no_header_means_no_wait(headers: Any) -> None:
    assert retry_after_seconds(headers) is None


def test_http_library_headers_are_read_without_regard_to_case() -> None:
    headers = httpx.Headers([("Retry-After", "7"), ("Content-Type", "application/json")])
    assert retry_after_seconds(headers) == 7.0


@pytest.mark.parametrize(
    ("status", "cls"),
    [
        (429, RateLimitError),
        (503, ModelOverloadedError),
        (400, BadRequestError),
        (None, ModelError),
    ],
)
def test_every_typed_error_carries_retry_after(status: int | None, cls: type[ModelError]) -> None:
    error = error_for_status(status, "failed", retry_after=2.5)
    assert type(error) is cls
    assert (error.status_code, error.retry_after) == (status, 2.5)
    assert error_for_status(status, "failed").retry_after is None


# -- Gemini says it in the body -------------------------------------------------------------


@pytest.fixture
def server() -> Iterator[FixtureServer]:
    with FixtureServer() as server:
        yield server


def _gemini_429(details: list[dict[str, Any]]) -> Any:
    error = {"code": 429, "message": "Quota exceeded.", "status": "RESOURCE_EXHAUSTED"}
    return json_response({"error": {**error, "details": details}}, 429)


@pytest.mark.parametrize("stream", [False, True], ids=["call", "stream"])
@pytest.mark.parametrize(
    ("delay", "expected"), [("2.5s", 2.5), ("52758s", 52758.0), ("soon", None), (7, None)]
)
async def test_gemini_reads_retry_info_from_the_error_body(
    server: FixtureServer, stream: bool, delay: Any, expected: float | None
) -> None:
    server.enqueue(
        _gemini_429(
            [
                {"@type": "type.googleapis.com/google.rpc.QuotaFailure", "violations": []},
                {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": delay},
            ]
        )
    )
    model = Gemini(model="gemini-fixture", base_url=server.base_url, api_key="k", max_retries=0)
    with pytest.raises(RateLimitError) as raised:
        await generate(model, LlmRequest(contents=[]), stream=stream)
    await model.close()
    assert raised.value.retry_after == expected


# -- RetryPolicy --------------------------------------------------------------------------------


def _limited(retry_after: float | None) -> RateLimitError:
    return RateLimitError("slow down", status_code=429, retry_after=retry_after)


def test_the_wait_is_the_longer_of_backoff_and_retry_after() -> None:
    policy = RetryPolicy(initial_delay=1, multiplier=2, max_delay=8, jitter=0)
    assert policy.delay(1, _limited(3)) == 3  # the provider asks for more than backoff
    assert policy.delay(3, _limited(3)) == 4  # backoff is already longer
    assert policy.delay(1, _limited(None)) == 1
    assert policy.delay(1, ValueError("no retry_after")) == 1
    assert policy.delay(1) == 1  # the error is optional (callers of the old signature)


def test_retry_after_is_not_capped_by_max_delay_nor_shortened_by_jitter(monkeypatch) -> None:
    policy = RetryPolicy(initial_delay=1, max_delay=2, jitter=0.5)
    monkeypatch.setattr(retry_module.random, "uniform", lambda low, high: low)
    assert policy.delay(1, _limited(30)) == 30


@pytest.mark.parametrize("odd", [True, "3", float("nan"), -1.0, float("inf")])
def test_a_retry_after_that_is_not_a_usable_number_is_ignored(odd: Any) -> None:
    error = RateLimitError("x")
    error.retry_after = odd
    policy = RetryPolicy(initial_delay=0.5, jitter=0)
    assert policy.delay(1, error) == 0.5
    assert policy.should_retry(error)


def test_a_wait_longer_than_max_retry_after_is_not_retried() -> None:
    policy = RetryPolicy()
    assert policy.max_retry_after == 60.0
    assert policy.should_retry(_limited(60))
    assert not policy.should_retry(_limited(60.5))
    assert not RetryPolicy(max_retry_after=0).should_retry(_limited(0.1))
    assert RetryPolicy(max_retry_after=float("inf")).should_retry(_limited(86_400))


def test_max_retry_after_applies_to_custom_rules_too() -> None:
    by_type = RetryPolicy(retry_on=(RateLimitError,), max_retry_after=5)
    by_rule = RetryPolicy(retry_if=lambda error: True, max_retry_after=5)
    for policy in (by_type, by_rule):
        assert policy.should_retry(_limited(5))
        assert not policy.should_retry(_limited(6))
    assert not RetryPolicy(retry_if=lambda error: False).should_retry(_limited(1))


def test_any_error_with_a_retry_after_is_honoured() -> None:
    class Busy(Exception):
        retryable = True
        retry_after = 2.0

    policy = RetryPolicy(initial_delay=0, max_retry_after=1)
    assert not policy.should_retry(Busy())
    assert RetryPolicy(initial_delay=0).delay(1, Busy()) == 2.0


def test_max_retry_after_must_not_be_negative() -> None:
    with pytest.raises(ValueError):
        RetryPolicy(max_retry_after=-1)


async def test_run_waits_what_the_error_asks(monkeypatch) -> None:
    waits: list[float] = []

    async def record(seconds: float) -> None:
        waits.append(seconds)

    monkeypatch.setattr(retry_module.asyncio, "sleep", record)
    failures = iter([_limited(1.5), _limited(None)])

    async def call() -> str:
        error = next(failures, None)
        if error is not None:
            raise error
        return "done"

    policy = RetryPolicy(attempts=3, initial_delay=0.1, multiplier=1, jitter=0)
    assert await policy.run(call) == "done"
    assert waits == [1.5, 0.1]


async def test_run_raises_at_once_when_the_wait_is_too_long(monkeypatch) -> None:
    waits: list[float] = []

    async def record(seconds: float) -> None:
        waits.append(seconds)

    monkeypatch.setattr(retry_module.asyncio, "sleep", record)
    calls = 0

    async def call() -> None:
        nonlocal calls
        calls += 1
        raise _limited(600)

    with pytest.raises(RateLimitError):
        await RetryPolicy(attempts=5).run(call)
    assert (calls, waits) == (1, [])


# -- end to end: an agent on an OpenAI-compatible server ----------------------------------------

wire = OpenAIWire()


def _rate_limited(retry_after: str) -> Any:
    body = {"error": {"message": "Rate limit reached", "type": "requests"}}
    return json_response(body, 429, {"Retry-After": retry_after})


def _agent(server: FixtureServer) -> LlmAgent:
    model = OpenAIChat(
        model="openai/gpt-fixture", base_url=f"{server.base_url}/v1", api_key="k", max_retries=0
    )
    # No backoff of its own: any pause comes from Retry-After.
    return LlmAgent(
        name="assistant", model=model, model_retry=RetryPolicy(attempts=3, initial_delay=0)
    )


@pytest.mark.parametrize("streaming", [False, True], ids=["call", "stream"])
async def test_the_retry_waits_what_retry_after_asks_then_the_turn_succeeds(
    server: FixtureServer, streaming: bool
) -> None:
    answer = wire.text_stream(["Hello ", "again."]) if streaming else wire.text("Hello again.")
    server.enqueue(_rate_limited("0.2"), answer)
    mode = StreamingMode.SSE if streaming else StreamingMode.NONE
    events = await TestRunner(_agent(server)).run("hi", run_config=RunConfig(streaming_mode=mode))
    final = events[-1]
    assert final.content is not None and final.content.text == "Hello again."
    first, second = server.requests
    assert second.received_at - first.received_at >= 0.19  # the 0.2 s asked, give or take


async def test_a_retry_after_beyond_max_retry_after_fails_at_once(server: FixtureServer) -> None:
    server.enqueue(_rate_limited("600"), wire.text("never sent"))
    async with asyncio.timeout(30):  # a policy that waited would hang here, not pass
        with pytest.raises(RateLimitError) as raised:
            await TestRunner(_agent(server)).run("hi")
    assert raised.value.retry_after == 600
    assert len(server.requests) == 1
    assert server.pending == 1
