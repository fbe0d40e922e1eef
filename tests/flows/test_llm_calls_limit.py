"""RunConfig.max_llm_calls: the per-invocation budget of model calls."""

from __future__ import annotations

import sys

import pytest
from pydantic import ValidationError

from pyadk.agents import InvocationContext, LlmAgent, LlmCallsLimitExceededError, RunConfig
from pyadk.models.llm_request import LlmRequest
from pyadk.sessions import InMemorySessionService, Session
from pyadk.testing import FunctionModel, ScriptedModel, TestRunner, function_call


def poll() -> str:
    """Checks whether the job is done."""
    return "not yet"


def _looping_model() -> FunctionModel:
    """A model stuck in a tool loop: it always calls ``poll`` again."""
    return FunctionModel(lambda request: function_call("poll"))


async def test_limit_stops_a_tool_loop_with_a_clear_error() -> None:
    model = _looping_model()
    runner = TestRunner(LlmAgent(name="poller", model=model, tools=[poll]))

    with pytest.raises(LlmCallsLimitExceededError) as info:
        await runner.run("wait for the job", run_config=RunConfig(max_llm_calls=3))

    message = str(info.value)
    assert "(3)" in message and "'poller'" in message and "max_llm_calls" in message
    assert len(model.requests) == 3  # the fourth call is refused before reaching the model


async def test_events_before_the_error_stay_in_the_session() -> None:
    runner = TestRunner(LlmAgent(name="poller", model=_looping_model(), tools=[poll]))

    with pytest.raises(LlmCallsLimitExceededError):
        await runner.run("go", run_config=RunConfig(max_llm_calls=2))

    session = await runner.session()
    kinds = [
        "call" if e.get_function_calls() else "response" if e.get_function_responses() else "text"
        for e in session.events
        if not e.is_outcome_event()
    ]
    assert kinds == ["text", "call", "response", "call", "response"]
    outcome = session.events[-1].actions.agent_outcome
    assert outcome.status == "failure"
    assert outcome.error_type == "LlmCallsLimitExceededError"
    assert session.events[0].author == "user"


async def test_limit_is_per_invocation_and_shared_across_agents() -> None:
    worker_model = _looping_model()
    worker = LlmAgent(name="worker", model=worker_model, tools=[poll])
    root_model = FunctionModel(
        lambda request: function_call("transfer_to_agent", {"agent_name": "worker"})
    )
    runner = TestRunner(LlmAgent(name="root", model=root_model, sub_agents=[worker]))

    with pytest.raises(LlmCallsLimitExceededError, match="'worker'"):
        await runner.run("go", run_config=RunConfig(max_llm_calls=3))
    assert (len(root_model.requests), len(worker_model.requests)) == (1, 2)

    # A new invocation starts with a fresh budget.
    with pytest.raises(LlmCallsLimitExceededError):
        await runner.run("again", run_config=RunConfig(max_llm_calls=3))
    assert len(worker_model.requests) == 5


async def test_limit_equal_to_the_calls_needed_is_enough() -> None:
    model = ScriptedModel([function_call("poll"), function_call("poll"), "done"])
    runner = TestRunner(LlmAgent(name="poller", model=model, tools=[poll]))

    events = await runner.run("go", run_config=RunConfig(max_llm_calls=3))

    assert events[-1].content.text == "done"


def _context(run_config: RunConfig) -> InvocationContext:
    session = Session(id="s", app_name="app", user_id="u")
    agent = LlmAgent(name="poller", model=ScriptedModel([]))
    return InvocationContext(
        session_service=InMemorySessionService(),
        session=session,
        agent=agent,
        run_config=run_config,
    )


@pytest.mark.parametrize("limit", [0, -1])
async def test_non_positive_limit_means_unbounded(limit: int) -> None:
    def reply(request: LlmRequest) -> object:
        return "finally done" if len(model.requests) >= 20 else function_call("poll")

    model = FunctionModel(reply)
    runner = TestRunner(LlmAgent(name="poller", model=model, tools=[poll]))

    events = await runner.run("go", run_config=RunConfig(max_llm_calls=limit))

    assert events[-1].content.text == "finally done"
    assert len(model.requests) == 20
    # Not even the default budget applies (counted directly: a 500-step run is slow).
    ctx = _context(RunConfig(max_llm_calls=limit))
    for _ in range(RunConfig().max_llm_calls + 100):
        ctx.increment_llm_call_count()
    assert ctx.llm_call_count == 600


def test_default_limit_is_500_calls() -> None:
    ctx = _context(RunConfig())
    for _ in range(500):
        ctx.increment_llm_call_count()
    with pytest.raises(LlmCallsLimitExceededError, match=r"\(500\)"):
        ctx.increment_llm_call_count()


def test_sys_maxsize_is_rejected() -> None:
    with pytest.raises(ValidationError, match="max_llm_calls"):
        RunConfig(max_llm_calls=sys.maxsize)
    assert RunConfig(max_llm_calls=sys.maxsize - 1).max_llm_calls == sys.maxsize - 1
