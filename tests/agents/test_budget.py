"""Budgets: a turn that reaches a limit stops before going past it and ends with one
BUDGET_EXCEEDED event, whatever failure policy the workflows have."""

from __future__ import annotations

import time
from typing import Any

import pytest

from pyadk import types
from pyadk.agents import (
    BUDGET_EXCEEDED,
    Budget,
    LlmAgent,
    ParallelAgent,
    RunConfig,
    SequentialAgent,
)
from pyadk.models import LlmRequest, LlmResponse
from pyadk.testing import FunctionModel, TestRunner, function_call
from pyadk.tools import FunctionTool


class Looper:
    """A model that keeps calling a tool (``lookup`` with a counter, or the same
    arguments each time), and the tool's run count."""

    def __init__(self, same_args: bool = False, tokens: int | None = None) -> None:
        self.same_args = same_args
        self.tokens = tokens
        self.model_calls = 0
        self.tool_runs = 0

    def lookup(self, q: str) -> dict[str, Any]:
        """Looks something up."""
        self.tool_runs += 1
        return {"q": q}

    def reply(self, request: LlmRequest) -> Any:
        self.model_calls += 1
        q = "same" if self.same_args else f"q{self.model_calls}"
        call = function_call("lookup", {"q": q})
        if self.tokens is None:
            return call
        usage = types.UsageMetadata(total_token_count=self.tokens)
        return LlmResponse(content=types.Content(role="model", parts=[call]), usage_metadata=usage)

    def agent(self, name: str = "looper") -> LlmAgent:
        return LlmAgent(name=name, model=FunctionModel(self.reply), tools=[self.lookup])


def budget(**limits: Any) -> RunConfig:
    return RunConfig(budget=Budget(**limits))


def assert_ended(events: list[Any], limit: str, used: int | float, allowed: int | float) -> None:
    last = events[-1]
    assert last.error_code == BUDGET_EXCEEDED and last.is_final_response()
    assert last.author == "looper"
    assert f"Budget exceeded: {limit} {used} of {allowed}" in (last.error_message or "")


async def test_model_calls_stop_before_the_one_past_the_limit() -> None:
    looper = Looper()
    runner = TestRunner(looper.agent())
    events = await runner.run("go", run_config=budget(llm_calls=3))  # no exception
    assert looper.model_calls == 3 and looper.tool_runs == 3
    assert_ended(events, "llm_calls", 4, 3)
    stored = (await runner.session()).events
    assert stored[-1].error_code == BUDGET_EXCEEDED  # the end is in the session too
    outcome = events[-2].actions.agent_outcome
    assert outcome is not None and outcome.status.value == "failure"
    assert "BudgetExceededError" in (outcome.error_type or "")


async def test_tool_calls_past_the_limit_do_not_run() -> None:
    looper = Looper()
    events = await TestRunner(looper.agent()).run("go", run_config=budget(tool_calls=2))
    assert looper.tool_runs == 2 and looper.model_calls == 3
    assert_ended(events, "tool_calls", 3, 2)


async def test_tokens_are_counted_from_usage_and_checked_before_each_call() -> None:
    looper = Looper(tokens=400)
    events = await TestRunner(looper.agent()).run("go", run_config=budget(tokens=1000))
    assert looper.model_calls == 3  # 400, 800, 1200: the fourth call would start over
    assert_ended(events, "tokens", 1200, 1000)


async def test_wall_time_is_checked_at_each_step() -> None:
    looper = Looper()

    def slow_lookup(q: str) -> dict[str, Any]:
        """Looks something up, slowly."""
        looper.tool_runs += 1
        time.sleep(0.3)
        return {"q": q}

    tool = FunctionTool(slow_lookup, name="lookup")
    agent = LlmAgent(name="looper", model=FunctionModel(looper.reply), tools=[tool])
    events = await TestRunner(agent).run("go", run_config=budget(wall_time=0.2))
    assert looper.tool_runs == 1 and looper.model_calls == 1
    assert events[-1].error_code == BUDGET_EXCEEDED
    assert "wall_time" in (events[-1].error_message or "")


async def test_a_model_repeating_the_same_call_is_stopped() -> None:
    looper = Looper(same_args=True)
    events = await TestRunner(looper.agent()).run("go", run_config=budget(repeated_tool_calls=2))
    assert looper.tool_runs == 2
    assert_ended(events, "repeated_tool_calls (lookup)", 3, 2)
    varied = Looper()  # different arguments each time are not repeats
    await TestRunner(varied.agent()).run(
        "go", run_config=budget(repeated_tool_calls=2, llm_calls=5)
    )
    assert varied.tool_runs == 5


@pytest.mark.parametrize("policy", ["continue", "skip_rest"])
async def test_failure_policies_do_not_absorb_the_end_of_the_budget(policy: str) -> None:
    looper, after = Looper(), Looper()
    flow = SequentialAgent(
        name="flow", sub_agents=[looper.agent(), after.agent("after")], on_failure=policy
    )
    events = await TestRunner(flow).run("go", run_config=budget(llm_calls=2))
    assert after.model_calls == 0  # the turn is over: nothing else runs
    assert_ended(events, "llm_calls", 3, 2)


async def test_a_parallel_agent_collecting_failures_still_stops() -> None:
    looper, other = Looper(), Looper()
    fan = ParallelAgent(
        name="fan", sub_agents=[looper.agent(), other.agent("other")], failure="collect"
    )
    events = await TestRunner(fan).run("go", run_config=budget(llm_calls=4))
    assert events[-1].error_code == BUDGET_EXCEEDED
    assert looper.model_calls + other.model_calls == 4


def test_budget_limits_are_validated() -> None:
    with pytest.raises(ValueError, match="greater than or equal to 1"):
        Budget(llm_calls=0)
    with pytest.raises(ValueError, match="Extra inputs"):
        Budget(llm_call=3)
    assert Budget.model_validate({"llmCalls": 2, "wallTime": 1.5}) == Budget(
        llm_calls=2, wall_time=1.5
    )
