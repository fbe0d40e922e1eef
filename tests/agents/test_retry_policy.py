"""RetryPolicy on its own: delays, backoff, jitter and which errors are retried."""

from __future__ import annotations

import asyncio

import pytest

from pyadk.agents import RetryPolicy
from pyadk.agents import retry_policy as retry_module
from pyadk.errors import (
    AgentTimeoutError,
    BadRequestError,
    ModelError,
    ModelOverloadedError,
    ModelTimeoutError,
    RateLimitError,
    ToolTimeoutError,
)

# -- delays -----------------------------------------------------------------------------------


def test_delay_grows_exponentially_up_to_max_delay():
    policy = RetryPolicy(initial_delay=1, multiplier=2, max_delay=5, jitter=0)
    assert [policy.delay(n) for n in (1, 2, 3, 4, 5)] == [1, 2, 4, 5, 5]


def test_multiplier_one_gives_a_constant_delay():
    policy = RetryPolicy(initial_delay=0.3, multiplier=1, jitter=0)
    assert [policy.delay(n) for n in (1, 2, 3)] == [0.3, 0.3, 0.3]


def test_jitter_varies_the_delay_within_its_fraction(monkeypatch):
    policy = RetryPolicy(initial_delay=2, multiplier=2, jitter=0.25)
    monkeypatch.setattr(retry_module.random, "uniform", lambda low, high: low)
    assert policy.delay(1) == pytest.approx(1.5)
    assert policy.delay(2) == pytest.approx(3.0)
    monkeypatch.setattr(retry_module.random, "uniform", lambda low, high: high)
    assert policy.delay(1) == pytest.approx(2.5)


def test_jittered_delays_stay_within_bounds_and_vary():
    policy = RetryPolicy(initial_delay=1, multiplier=2, max_delay=3, jitter=0.2)
    firsts = [policy.delay(1) for _ in range(200)]
    assert all(0.8 <= d <= 1.2 for d in firsts)
    assert len(set(firsts)) > 1
    capped = [policy.delay(6) for _ in range(200)]
    assert all(2.4 <= d <= 3.6 for d in capped)  # jitter applies to the capped delay


def test_zero_initial_delay_never_waits():
    policy = RetryPolicy(initial_delay=0, jitter=1)
    assert {policy.delay(n) for n in range(1, 6)} == {0.0}


@pytest.mark.parametrize(
    "kwargs",
    [{"attempts": 0}, {"initial_delay": -1}, {"jitter": 1.5}, {"multiplier": 0.5}, {"bogus": 1}],
)
def test_invalid_settings_are_rejected(kwargs):
    with pytest.raises(ValueError):
        RetryPolicy(**kwargs)


# -- which errors are retried -----------------------------------------------------------------


class _Flagged(Exception):
    retryable = True


@pytest.mark.parametrize(
    ("error", "expected"),
    [
        (RateLimitError("429"), True),
        (ModelOverloadedError("503"), True),
        (ModelTimeoutError("slow"), True),
        (ToolTimeoutError("slow"), True),
        (AgentTimeoutError("slow"), True),
        (TimeoutError(), True),
        (ConnectionResetError(), True),
        (_Flagged(), True),
        (BadRequestError("400"), False),
        (ModelError("unknown"), False),
        (ValueError("bad"), False),
        (RuntimeError("bug"), False),
    ],
)
def test_default_should_retry(error, expected):
    assert RetryPolicy().should_retry(error) is expected


def test_retry_on_lists_the_retried_types():
    policy = RetryPolicy(retry_on=(ValueError,))
    assert policy.should_retry(ValueError("x"))
    assert policy.should_retry(UnicodeError("subclass of ValueError"))
    assert not policy.should_retry(RateLimitError("not listed"))


def test_retry_if_decides_when_given():
    policy = RetryPolicy(
        retry_on=(ValueError,),  # ignored: retry_if wins
        retry_if=lambda error: "again" in str(error),
    )
    assert policy.should_retry(RuntimeError("try again"))
    assert not policy.should_retry(ValueError("no"))


def test_errors_carry_the_status_code():
    assert RateLimitError("slow", status_code=429).status_code == 429
    assert BadRequestError("bad").status_code is None


# -- run --------------------------------------------------------------------------------------


async def test_run_retries_until_success_and_waits_the_policy_delays(monkeypatch):
    waits: list[float] = []
    real_sleep = asyncio.sleep

    async def fake_sleep(seconds, *args, **kwargs):
        waits.append(seconds)
        await real_sleep(0)

    monkeypatch.setattr(retry_module.asyncio, "sleep", fake_sleep)
    calls = []

    async def flaky():
        calls.append(1)
        if len(calls) < 3:
            raise ConnectionError("reset")
        return "ok"

    policy = RetryPolicy(attempts=3, initial_delay=0.1, multiplier=3, jitter=0)
    assert await policy.run(flaky) == "ok"
    assert len(calls) == 3
    assert waits == [pytest.approx(0.1), pytest.approx(0.3)]


async def test_run_gives_up_after_the_last_attempt():
    calls = []

    async def always_down():
        calls.append(1)
        raise ModelOverloadedError(f"down #{len(calls)}")

    with pytest.raises(ModelOverloadedError, match="down #2"):
        await RetryPolicy(attempts=2, initial_delay=0).run(always_down)
    assert len(calls) == 2


async def test_run_does_not_retry_a_non_retryable_error():
    calls = []

    async def rejected():
        calls.append(1)
        raise BadRequestError("malformed")

    with pytest.raises(BadRequestError):
        await RetryPolicy(attempts=5, initial_delay=0).run(rejected)
    assert len(calls) == 1


async def test_one_attempt_means_no_retry():
    calls = []

    async def down():
        calls.append(1)
        raise RateLimitError("429")

    with pytest.raises(RateLimitError):
        await RetryPolicy(attempts=1).run(down)
    assert len(calls) == 1
