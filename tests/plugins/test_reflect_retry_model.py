"""ReflectAndRetryModelPlugin through a real Runner with scripted models."""

from __future__ import annotations

from typing import Any

import pytest

from pyadk import types
from pyadk.agents import BUDGET_EXCEEDED, Budget, LlmAgent, RunConfig
from pyadk.events.event import Event
from pyadk.models.llm_response import LlmResponse
from pyadk.plugins import ReflectAndRetryModelPlugin
from pyadk.plugins._reflect_retry_utils import TrackingScope
from pyadk.testing import ScriptedModel, TestRunner, function_call

MALFORMED = types.FinishReason.MALFORMED_FUNCTION_CALL
RESERVED = "adk_handle_model_error"


def malformed(detail: str = "bad JSON in arguments") -> LlmResponse:
    """What an adapter returns for a tool call it could not parse."""
    return LlmResponse(
        content=types.Content(role="model", parts=[types.Part(text="")]),
        finish_reason=MALFORMED,
        error_code=MALFORMED.value,
        error_message=detail,
    )


def reflection_calls(events: list[Event]) -> list[types.FunctionCall]:
    return [c for e in events for c in e.get_function_calls() if c.name == RESERVED]


def reflection_results(events: list[Event]) -> list[dict[str, Any]]:
    return [
        r.response or {} for e in events for r in e.get_function_responses() if r.name == RESERVED
    ]


def add(a: int, b: int) -> int:
    """Adds two numbers."""
    return a + b


async def test_a_malformed_call_is_reflected_and_the_model_asked_again() -> None:
    model = ScriptedModel(
        [malformed("bad JSON"), function_call("add", {"a": 1, "b": 2}), "1 + 2 = 3"]
    )
    agent = LlmAgent(name="calc", model=model, tools=[add])
    runner = TestRunner(agent, plugins=[ReflectAndRetryModelPlugin(max_retries=2)])

    events = await runner.run("What is 1 + 2?")

    [call] = reflection_calls(events)
    assert call.id.startswith(f"{RESERVED}_")
    assert call.args["retry_count"] == 1
    assert call.args["error_type"] == "MALFORMED_FUNCTION_CALL"
    assert call.args["error_details"] == "bad JSON"
    assert call.args["response_type"] == "ERROR_HANDLED_BY_REFLECT_AND_RETRY_PLUGIN"
    [result] = reflection_results(events)
    assert "retry 1 of 2" in result["reflection_guidance"]
    assert "bad JSON" in result["reflection_guidance"]
    assert events[-1].text == "1 + 2 = 3"
    assert all(not e.error_code for e in events)
    assert model.call_count == 3
    # The second request carries the reflection; the tool is never declared to the model.
    second = model.requests[1]
    assert second.contents[-1].parts[0].function_response.name == RESERVED
    declared = [d.name for t in second.config.tools or [] for d in t.function_declarations or []]
    assert declared == ["add"]
    stored = (await runner.session()).events
    assert reflection_calls(stored) and reflection_results(stored)  # history keeps them


async def test_past_max_retries_a_runtime_error_names_the_model_and_the_error() -> None:
    model = ScriptedModel([malformed("one"), malformed("two"), malformed("three")])
    agent = LlmAgent(name="calc", model=model, tools=[add])
    runner = TestRunner(agent, plugins=[ReflectAndRetryModelPlugin(max_retries=2)])

    with pytest.raises(RuntimeError) as raised:
        await runner.run("go")

    cause = raised.value.__cause__
    assert isinstance(cause, RuntimeError)
    assert str(cause) == (
        "The model 'scripted' failed 3 times in a row (max_retries=2); "
        "last error: MALFORMED_FUNCTION_CALL: three."
    )
    assert model.call_count == 3


async def test_without_raising_the_bad_response_is_kept_and_recorded_as_a_failure() -> None:
    model = ScriptedModel([malformed("one"), malformed("two")])
    agent = LlmAgent(name="calc", model=model, tools=[add])
    plugin = ReflectAndRetryModelPlugin(max_retries=1, throw_exception_if_retry_exceeded=False)
    runner = TestRunner(agent, plugins=[plugin])

    events = await runner.run("go")

    assert len(reflection_calls(events)) == 1
    error_event = [e for e in events if e.error_code][-1]
    assert error_event.error_code == "MALFORMED_FUNCTION_CALL"
    assert error_event.error_message == "two"
    assert events[-1].actions.agent_outcome.status == "failure"


async def test_only_the_configured_finish_reasons_are_retried() -> None:
    blocked = LlmResponse(
        finish_reason=types.FinishReason.SAFETY, error_code="SAFETY", error_message="blocked"
    )
    default = TestRunner(
        LlmAgent(name="a", model=ScriptedModel([blocked])),
        plugins=[ReflectAndRetryModelPlugin()],
    )
    events = await default.run("go")
    assert events[0].error_code == "SAFETY" and not reflection_calls(events)

    model = ScriptedModel([blocked, "safe answer"])
    plugin = ReflectAndRetryModelPlugin(on_model_errors=[types.FinishReason.SAFETY])
    events = await TestRunner(LlmAgent(name="a", model=model), plugins=[plugin]).run("go")
    assert len(reflection_calls(events)) == 1 and events[-1].text == "safe answer"

    with pytest.raises(ValueError, match=r"on_model_errors must hold types\.FinishReason"):
        ReflectAndRetryModelPlugin(on_model_errors=["SAFETY"])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="max_retries must be a non-negative integer"):
        ReflectAndRetryModelPlugin(max_retries=-2)


async def test_a_model_calling_the_reserved_tool_itself_counts_as_a_failure() -> None:
    hijack = function_call(RESERVED, {"response_type": "x", "retry_count": 99})
    model = ScriptedModel([hijack, "sorry"])
    runner = TestRunner(
        LlmAgent(name="a", model=model), plugins=[ReflectAndRetryModelPlugin(max_retries=1)]
    )

    events = await runner.run("go")

    [call] = reflection_calls(events)
    assert call.args["error_type"] == "RESERVED_TOOL_CALL"
    assert call.args["retry_count"] == 1  # the model's own arguments never reach the tool
    assert events[-1].text == "sorry"

    model = ScriptedModel([hijack, hijack])
    plugin = ReflectAndRetryModelPlugin(max_retries=1, throw_exception_if_retry_exceeded=False)
    events = await TestRunner(LlmAgent(name="a", model=model), plugins=[plugin]).run("go")
    assert events[-2].error_code == "RESERVED_TOOL_CALL"
    assert "retry limit was reached" in events[-2].error_message


async def test_a_good_response_resets_the_count_and_turns_start_afresh() -> None:
    model = ScriptedModel(
        [
            malformed(),
            function_call("add", {"a": 1, "b": 1}),  # good: resets
            malformed(),  # 1 of 1 again
            "2",
            malformed(),  # next turn: 1 of 1 (invocation scope)
            "done",
        ]
    )
    runner = TestRunner(
        LlmAgent(name="a", model=model, tools=[add]),
        plugins=[ReflectAndRetryModelPlugin(max_retries=1)],
    )
    first = await runner.run("go")
    second = await runner.run("again")
    assert [c.args["retry_count"] for c in reflection_calls(first)] == [1, 1]
    assert [c.args["retry_count"] for c in reflection_calls(second)] == [1]

    plugin = ReflectAndRetryModelPlugin(max_retries=5, tracking_scope=TrackingScope.GLOBAL)
    model = ScriptedModel([malformed(), "a", malformed(), "b"])
    runner = TestRunner(LlmAgent(name="a", model=model), plugins=[plugin])
    await runner.run("one")
    # "a" was a good response: the global count was reset by it.
    assert [c.args["retry_count"] for c in reflection_calls(await runner.run("two"))] == [1]


async def test_budgets_and_max_llm_calls_still_bound_the_retries() -> None:
    model = ScriptedModel([malformed()] * 10)
    runner = TestRunner(
        LlmAgent(name="a", model=model), plugins=[ReflectAndRetryModelPlugin(max_retries=9)]
    )
    events = await runner.run("go", run_config=RunConfig(budget=Budget(llm_calls=3)))
    assert events[-1].error_code == BUDGET_EXCEEDED
    assert "llm_calls" in events[-1].error_message
    assert model.call_count == 3


async def test_streamed_chunks_do_not_reset_or_count() -> None:
    from pyadk.agents import StreamingMode
    from pyadk.testing import Stream

    model = ScriptedModel([malformed(), Stream(["fine ", "now"])])
    runner = TestRunner(
        LlmAgent(name="a", model=model), plugins=[ReflectAndRetryModelPlugin(max_retries=1)]
    )
    events = await runner.run("go", run_config=RunConfig(streaming_mode=StreamingMode.SSE))
    assert len(reflection_calls(events)) == 1
    assert events[-1].text == "fine now" and not events[-1].partial
