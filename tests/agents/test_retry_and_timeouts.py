"""LlmAgent model_retry / model_timeout and tool_retry / tool_timeout."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncGenerator

import pytest

from pyadk import types
from pyadk.agents import LlmAgent, LlmCallsLimitExceededError, RetryPolicy, RunConfig
from pyadk.errors import (
    BadRequestError,
    ModelOverloadedError,
    ModelTimeoutError,
    RateLimitError,
    ToolTimeoutError,
)
from pyadk.models.base_llm import BaseLlm
from pyadk.models.llm_response import LlmResponse
from pyadk.testing import FunctionModel, ScriptedModel, TestRunner, function_call, simplify_events

NO_WAIT = RetryPolicy(attempts=3, initial_delay=0)


def _response_of(request, name: str) -> dict:
    """The response to tool ``name`` that the model received."""
    for content in request.contents:
        for part in content.parts or []:
            if part.function_response and part.function_response.name == name:
                return part.function_response.response
    raise AssertionError(f"no response of {name} in the request")


async def _hang(*args, **kwargs):
    await asyncio.Event().wait()


# -- model_retry ------------------------------------------------------------------------------


async def test_model_retry_retries_a_rate_limited_call():
    model = ScriptedModel([RateLimitError("slow down", status_code=429), "hello"])
    runner = TestRunner(LlmAgent(name="a", model=model, model_retry=NO_WAIT))
    events = await runner.run("hi")
    assert simplify_events(events) == [("a", "hello")]
    assert model.call_count == 2
    assert model.requests[1].contents == model.requests[0].contents
    assert "outcome:a" not in await runner.state()  # a success


async def test_each_attempt_counts_toward_max_llm_calls():
    model = ScriptedModel([RateLimitError("slow down"), "hello"])
    runner = TestRunner(LlmAgent(name="a", model=model, model_retry=NO_WAIT))
    with pytest.raises(LlmCallsLimitExceededError):
        await runner.run("hi", run_config=RunConfig(max_llm_calls=1))
    assert model.call_count == 1

    model = ScriptedModel([RateLimitError("slow down"), "hello"])
    runner = TestRunner(LlmAgent(name="a", model=model, model_retry=NO_WAIT))
    events = await runner.run("hi", run_config=RunConfig(max_llm_calls=2))
    assert simplify_events(events) == [("a", "hello")]


async def test_model_retry_gives_up_after_its_attempts():
    model = ScriptedModel([ModelOverloadedError("busy 1"), ModelOverloadedError("busy 2"), "never"])
    runner = TestRunner(
        LlmAgent(name="a", model=model, model_retry=RetryPolicy(attempts=2, initial_delay=0))
    )
    with pytest.raises(ModelOverloadedError, match="busy 2"):
        await runner.run("hi")
    assert model.call_count == 2
    assert (await runner.state())["outcome:a"]["error_type"] == "ModelOverloadedError"


async def test_non_retryable_model_errors_are_not_retried():
    model = ScriptedModel([BadRequestError("malformed request", status_code=400), "never"])
    runner = TestRunner(LlmAgent(name="a", model=model, model_retry=NO_WAIT))
    with pytest.raises(BadRequestError, match="malformed request"):
        await runner.run("hi")
    assert model.call_count == 1
    assert (await runner.state())["outcome:a"] == {
        "status": "failure",
        "reason": "malformed request",
        "error_type": "BadRequestError",
    }


async def test_without_model_retry_a_retryable_error_is_raised_at_once():
    model = ScriptedModel([RateLimitError("slow down"), "hello"])
    with pytest.raises(RateLimitError):
        await TestRunner(LlmAgent(name="a", model=model)).run("hi")
    assert model.call_count == 1


async def test_model_retry_with_retry_on_retries_custom_errors():
    model = ScriptedModel([KeyError("flaky"), "hello"])
    policy = RetryPolicy(initial_delay=0, retry_on=(KeyError,))
    events = await TestRunner(LlmAgent(name="a", model=model, model_retry=policy)).run("hi")
    assert simplify_events(events) == [("a", "hello")]


async def test_on_model_error_callback_sees_only_the_final_error():
    errors = []

    def on_error(callback_context, llm_request, error):
        errors.append(str(error))
        return LlmResponse(content=types.ModelContent("fallback"))

    model = ScriptedModel([RateLimitError("first"), RateLimitError("second")])
    agent = LlmAgent(
        name="a",
        model=model,
        model_retry=RetryPolicy(attempts=2, initial_delay=0),
        on_model_error_callback=on_error,
    )
    events = await TestRunner(agent).run("hi")
    assert simplify_events(events) == [("a", "fallback")]
    assert errors == ["second"]


class _BreaksMidStream(BaseLlm):
    """Streams one chunk, then fails; records how often it was called."""

    model: str = "breaks"
    calls: int = 0

    async def generate_content_async(self, llm_request, stream=False) -> AsyncGenerator:
        self.calls += 1
        yield LlmResponse(content=types.ModelContent("partial answer"), partial=True)
        raise RateLimitError("dropped")


async def test_a_model_call_that_already_streamed_output_is_not_retried():
    model = _BreaksMidStream()
    agent = LlmAgent(name="a", model=model, model_retry=NO_WAIT)
    with pytest.raises(RateLimitError):
        await TestRunner(agent).run("hi", run_config=RunConfig(streaming_mode="sse"))
    assert model.calls == 1


# -- model_timeout ----------------------------------------------------------------------------


async def test_model_timeout_raises_model_timeout_error():
    runner = TestRunner(LlmAgent(name="a", model=FunctionModel(_hang), model_timeout=0.05))
    with pytest.raises(ModelTimeoutError, match=r"Model call of agent 'a' timed out after 0.05 s"):
        await runner.run("hi")
    outcome = (await runner.state())["outcome:a"]
    assert outcome["status"] == "failure" and outcome["error_type"] == "ModelTimeoutError"


async def test_on_model_error_callback_recovers_from_a_model_timeout():
    errors = []

    def on_error(callback_context, llm_request, error):
        errors.append(error)
        return LlmResponse(content=types.ModelContent("the model is slow today"))

    agent = LlmAgent(
        name="a", model=FunctionModel(_hang), model_timeout=0.05, on_model_error_callback=on_error
    )
    runner = TestRunner(agent)
    events = await runner.run("hi")
    assert simplify_events(events) == [("a", "the model is slow today")]
    assert len(errors) == 1 and isinstance(errors[0], ModelTimeoutError)
    assert "outcome:a" not in await runner.state()


async def test_a_timed_out_model_call_is_retried():
    calls = []

    async def slow_then_fast(request):
        calls.append(1)
        if len(calls) == 1:
            await asyncio.Event().wait()
        return "second try"

    agent = LlmAgent(
        name="a", model=FunctionModel(slow_then_fast), model_timeout=0.05, model_retry=NO_WAIT
    )
    events = await TestRunner(agent).run("hi")
    assert simplify_events(events) == [("a", "second try")]
    assert len(calls) == 2


# -- tool_timeout -----------------------------------------------------------------------------


async def test_tool_timeout_for_an_async_tool():
    async def slow_tool() -> dict:
        """Never returns."""
        await asyncio.Event().wait()
        return {}

    model = ScriptedModel([function_call("slow_tool"), "never"])
    runner = TestRunner(LlmAgent(name="a", model=model, tools=[slow_tool], tool_timeout=0.05))
    with pytest.raises(ToolTimeoutError, match=r"Tool 'slow_tool' timed out after 0.05 s"):
        await runner.run("hi")
    assert model.call_count == 1
    outcome = (await runner.state())["outcome:a"]
    assert outcome["error_type"] == "ToolTimeoutError"


async def test_tool_timeout_for_a_blocking_sync_tool():
    release = threading.Event()

    def blocking_tool() -> dict:
        """Blocks its thread."""
        release.wait(5)
        return {"status": "late"}

    model = ScriptedModel([function_call("blocking_tool"), "never"])
    agent = LlmAgent(name="a", model=model, tools=[blocking_tool], tool_timeout=0.05)
    try:
        with pytest.raises(ToolTimeoutError, match="blocking_tool"):
            await TestRunner(agent).run("hi")
    finally:
        release.set()  # lets the worker thread finish


async def test_on_tool_error_callback_recovers_from_a_tool_timeout():
    errors = []

    async def slow_tool() -> dict:
        """Never returns."""
        await asyncio.Event().wait()
        return {}

    def on_error(tool, args, tool_context, error):
        errors.append(type(error).__name__)
        return {"result": "cached value"}

    model = ScriptedModel([function_call("slow_tool"), "used the cache"])
    agent = LlmAgent(
        name="a", model=model, tools=[slow_tool], tool_timeout=0.05, on_tool_error_callback=on_error
    )
    runner = TestRunner(agent)
    events = await runner.run("hi")
    assert simplify_events(events)[-1] == ("a", "used the cache")
    assert errors == ["ToolTimeoutError"]
    assert _response_of(model.requests[1], "slow_tool") == {"result": "cached value"}
    assert "outcome:a" not in await runner.state()


async def test_tool_error_callback_reporting_an_error_status_marks_the_agent_failed():
    async def slow_tool() -> dict:
        """Never returns."""
        await asyncio.Event().wait()
        return {}

    def on_error(tool, args, tool_context, error):
        return {"status": "error", "message": str(error)}

    model = ScriptedModel([function_call("slow_tool"), "sorry"])
    agent = LlmAgent(
        name="a", model=model, tools=[slow_tool], tool_timeout=0.05, on_tool_error_callback=on_error
    )
    runner = TestRunner(agent)
    await runner.run("hi")
    assert (await runner.state())["outcome:a"]["reason"] == (
        "tool slow_tool failed: Tool 'slow_tool' timed out after 0.05 s."
    )


# -- tool_retry -------------------------------------------------------------------------------


async def test_tool_retry_retries_a_flaky_tool():
    calls = []

    def flaky_tool() -> dict:
        """Fails twice, then works."""
        calls.append(1)
        if len(calls) < 3:
            raise ConnectionError("connection reset")
        return {"value": 7}

    model = ScriptedModel([function_call("flaky_tool"), "got 7"])
    agent = LlmAgent(name="a", model=model, tools=[flaky_tool], tool_retry=NO_WAIT)
    events = await TestRunner(agent).run("hi")
    assert simplify_events(events)[-1] == ("a", "got 7")
    assert len(calls) == 3
    assert _response_of(model.requests[1], "flaky_tool") == {"value": 7}


async def test_tool_retry_does_not_retry_a_non_retryable_error():
    calls = []

    def broken_tool() -> dict:
        """A bug."""
        calls.append(1)
        raise ValueError("bug in tool")

    model = ScriptedModel([function_call("broken_tool"), "never"])
    agent = LlmAgent(name="a", model=model, tools=[broken_tool], tool_retry=NO_WAIT)
    with pytest.raises(ValueError, match="bug in tool"):
        await TestRunner(agent).run("hi")
    assert len(calls) == 1


async def test_tool_retry_exhausted_hands_the_last_error_to_on_tool_error_callback():
    calls, errors = [], []

    def down_tool() -> dict:
        """Always down."""
        calls.append(1)
        raise ConnectionError(f"down #{len(calls)}")

    def on_error(tool, args, tool_context, error):
        errors.append(str(error))
        return {"status": "error", "message": "service down"}

    model = ScriptedModel([function_call("down_tool"), "sorry"])
    agent = LlmAgent(
        name="a",
        model=model,
        tools=[down_tool],
        tool_retry=RetryPolicy(attempts=2, initial_delay=0),
        on_tool_error_callback=on_error,
    )
    await TestRunner(agent).run("hi")
    assert len(calls) == 2
    assert errors == ["down #2"]


async def test_a_timed_out_tool_call_is_retried():
    calls = []

    async def sometimes_slow() -> dict:
        """Slow the first time."""
        calls.append(1)
        if len(calls) == 1:
            await asyncio.Event().wait()
        return {"value": "fast"}

    model = ScriptedModel([function_call("sometimes_slow"), "done"])
    agent = LlmAgent(
        name="a", model=model, tools=[sometimes_slow], tool_timeout=0.05, tool_retry=NO_WAIT
    )
    await TestRunner(agent).run("hi")
    assert len(calls) == 2
    assert _response_of(model.requests[1], "sometimes_slow") == {"value": "fast"}


@pytest.mark.parametrize("field", ["model_timeout", "tool_timeout"])
def test_timeouts_must_be_positive(field):
    with pytest.raises(ValueError):
        LlmAgent(name="a", model=ScriptedModel([]), **{field: 0})
