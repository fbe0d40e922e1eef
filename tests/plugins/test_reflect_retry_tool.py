"""ReflectAndRetryToolPlugin through a real Runner with scripted models."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from pyadk.agents import BUDGET_EXCEEDED, Budget, LlmAgent, RetryPolicy, RunConfig
from pyadk.events.event import Event
from pyadk.models.llm_request import LlmRequest
from pyadk.plugins import (
    ReflectAndRetryToolPlugin,
    ToolResultClassification,
)
from pyadk.plugins.reflect_retry_tool_plugin import TrackingScope
from pyadk.testing import FunctionModel, ScriptedModel, TestRunner, function_call
from pyadk.tools import BaseTool, ToolContext

RESPONSE_TYPE = "ERROR_HANDLED_BY_REFLECT_AND_RETRY_PLUGIN"


class Flaky:
    """A tool that raises for its first ``failures`` calls, then answers."""

    def __init__(self, failures: int) -> None:
        self.failures = failures
        self.calls: list[dict[str, Any]] = []

    def fetch(self, city: str) -> dict[str, Any]:
        """Fetches the weather of a city."""
        self.calls.append({"city": city})
        if len(self.calls) <= self.failures:
            raise ConnectionError(f"weather service down (call {len(self.calls)})")
        return {"city": city, "sky": "clear"}


def responses(events: list[Event]) -> list[dict[str, Any]]:
    """Every function response the turn produced, in order."""
    return [
        response.response or {} for event in events for response in event.get_function_responses()
    ]


def retry_until_answer(request: LlmRequest) -> Any:
    """Calls fetch again after every reflection answer; answers once it succeeds."""
    last = request.contents[-1].parts or []
    results = [p.function_response.response for p in last if p.function_response is not None]
    if results and results[-1].get("sky"):
        return "It is clear."
    return function_call("fetch", {"city": "Paris"})


async def test_a_raising_tool_is_answered_with_guidance_until_it_succeeds() -> None:
    tool = Flaky(failures=2)
    model = FunctionModel(retry_until_answer)
    agent = LlmAgent(name="weather", model=model, tools=[tool.fetch])
    runner = TestRunner(agent, plugins=[ReflectAndRetryToolPlugin(max_retries=3)])

    events = await runner.run("Weather in Paris?")

    first, second, third = responses(events)
    assert first["response_type"] == RESPONSE_TYPE
    assert (first["retry_count"], second["retry_count"]) == (1, 2)
    assert first["error_type"] == "ConnectionError"
    assert first["error_details"] == "weather service down (call 1)"
    guidance = first["reflection_guidance"]
    assert "`fetch` failed" in guidance and "retry 1 of 3" in guidance
    assert '"city": "Paris"' in guidance  # the arguments used
    assert third == {"city": "Paris", "sky": "clear"}
    assert events[-1].text == "It is clear."
    assert len(tool.calls) == 3 and len(model.requests) == 4
    # The model saw the guidance as the call's result.
    seen = model.requests[1].contents[-1].parts[0].function_response
    assert seen.response["response_type"] == RESPONSE_TYPE
    # A recovered failure is not the agent's failure.
    assert events[-1].actions.agent_outcome is None


async def test_past_max_retries_the_tool_error_is_raised_with_its_cause() -> None:
    tool = Flaky(failures=100)
    model = FunctionModel(retry_until_answer)
    agent = LlmAgent(name="weather", model=model, tools=[tool.fetch])
    runner = TestRunner(agent, plugins=[ReflectAndRetryToolPlugin(max_retries=2)])

    with pytest.raises(RuntimeError) as raised:
        await runner.run("Weather in Paris?")

    assert isinstance(raised.value.__cause__, ConnectionError)
    assert "reflect_retry_tool_plugin" in str(raised.value)
    assert "weather service down (call 3)" in str(raised.value)
    assert len(tool.calls) == 3  # the first call and two retries
    stored = (await runner.session()).events
    assert stored[-1].actions.agent_outcome.status == "failure"
    assert stored[-1].actions.agent_outcome.error_type == "RuntimeError"


async def test_without_raising_the_model_is_told_to_stop_and_the_run_records_a_failure() -> None:
    tool = Flaky(failures=100)

    def model_reply(request: LlmRequest) -> Any:
        last = request.contents[-1].parts or []
        results = [p.function_response.response for p in last if p.function_response]
        if results and results[-1].get("status") == "error":
            return "Sorry, the weather service is down."
        return function_call("fetch", {"city": "Paris"})

    agent = LlmAgent(name="weather", model=FunctionModel(model_reply), tools=[tool.fetch])
    plugin = ReflectAndRetryToolPlugin(max_retries=1, throw_exception_if_retry_exceeded=False)
    runner = TestRunner(agent, plugins=[plugin])

    events = await runner.run("Weather in Paris?")

    guidance, final = responses(events)
    assert guidance["retry_count"] == 1 and "status" not in guidance
    assert final["response_type"] == RESPONSE_TYPE and final["retry_count"] == 1
    assert final["status"] == "error"
    assert "Do not call `fetch` again" in final["reflection_guidance"]
    assert events[-2].text == "Sorry, the weather service is down."
    outcome = events[-1].actions.agent_outcome
    assert outcome.status == "failure"
    assert "gave up after 1 retries: ConnectionError" in outcome.reason
    assert len(tool.calls) == 2


async def test_a_success_resets_the_count_of_that_tool_only() -> None:
    log: list[str] = []

    def flip(n: int) -> dict[str, Any]:
        """Fails on odd numbers."""
        log.append(f"flip{n}")
        if n % 2:
            raise ValueError(f"odd {n}")
        return {"n": n}

    def other() -> dict[str, Any]:
        """Always fails."""
        log.append("other")
        raise KeyError("missing")

    script = [
        function_call("flip", {"n": 1}),  # flip: 1 of 1
        function_call("other"),  # other: 1 of 1 (its own count)
        function_call("flip", {"n": 2}),  # success: flip's count is reset
        function_call("flip", {"n": 3}),  # flip: 1 of 1 again, not past the limit
        "done",
    ]
    agent = LlmAgent(name="a", model=ScriptedModel(script), tools=[flip, other])
    runner = TestRunner(agent, plugins=[ReflectAndRetryToolPlugin(max_retries=1)])

    events = await runner.run("go")

    got = responses(events)
    assert [r.get("retry_count") for r in got] == [1, 1, None, 1]
    assert got[1]["error_type"] == "KeyError"
    assert events[-1].text == "done"
    assert log == ["flip1", "other", "flip2", "flip3"]


async def test_parallel_failing_calls_are_each_counted_once() -> None:
    gate = asyncio.Event()
    started = 0

    async def slow_fail(i: int) -> dict[str, Any]:
        """Fails after every call has started."""
        nonlocal started
        started += 1
        if started == 4:
            gate.set()
        await gate.wait()
        raise TimeoutError(f"call {i} timed out")

    calls = [function_call("slow_fail", {"i": i}) for i in range(4)]
    agent = LlmAgent(name="a", model=ScriptedModel([calls, "gave up"]), tools=[slow_fail])
    plugin = ReflectAndRetryToolPlugin(max_retries=4)
    runner = TestRunner(agent, plugins=[plugin])

    events = await runner.run("go")

    counts = sorted(r["retry_count"] for r in responses(events))
    assert counts == [1, 2, 3, 4]  # no count lost or repeated between concurrent calls

    # With a lower limit, the call past it fails the whole response.
    gate.clear()
    started = 0
    agent = LlmAgent(name="b", model=ScriptedModel([calls]), tools=[slow_fail])
    runner = TestRunner(agent, plugins=[ReflectAndRetryToolPlugin(max_retries=3)])
    with pytest.raises(RuntimeError) as raised:
        await runner.run("go")
    assert isinstance(raised.value.__cause__, TimeoutError)


async def test_invocation_scope_starts_each_turn_afresh_global_scope_does_not() -> None:
    def broken() -> dict[str, Any]:
        """Always fails."""
        raise RuntimeError("broken")

    def script() -> list[Any]:
        return [function_call("broken"), "turn 1 over", function_call("broken"), "turn 2 over"]

    per_turn = TestRunner(
        LlmAgent(name="a", model=ScriptedModel(script()), tools=[broken]),
        plugins=[ReflectAndRetryToolPlugin(max_retries=5)],
    )
    glob = ReflectAndRetryToolPlugin(max_retries=5, tracking_scope=TrackingScope.GLOBAL)
    shared = TestRunner(
        LlmAgent(name="a", model=ScriptedModel(script()), tools=[broken]), plugins=[glob]
    )

    for runner in (per_turn, shared):
        await runner.run("first")
    second_per_turn = responses(await per_turn.run("second"))
    second_shared = responses(await shared.run("second"))

    assert second_per_turn[0]["retry_count"] == 1
    assert second_shared[0]["retry_count"] == 2
    # Invocation counts are dropped when the turn ends; global ones are kept.
    assert (
        per_turn.plugin_manager.get_plugin("reflect_retry_tool_plugin")._tracker.count(
            "any", "broken"
        )
        == 0
    )
    assert glob._tracker.count("__global_reflect_and_retry_scope__", "broken") == 2


async def test_a_custom_scope_key_counts_per_user() -> None:
    class PerUser(ReflectAndRetryToolPlugin):
        def _get_scope_key(self, tool_context: ToolContext) -> str:
            return f"user:{tool_context.session.user_id}"

    def broken() -> dict[str, Any]:
        """Always fails."""
        raise RuntimeError("broken")

    plugin = PerUser(max_retries=5)

    async def turn(user: str) -> int:
        model = ScriptedModel([function_call("broken"), "ok"])
        agent = LlmAgent(name="a", model=model, tools=[broken])
        runner = TestRunner(agent, user_id=user, plugins=[plugin])
        return responses(await runner.run("go"))[0]["retry_count"]

    assert [await turn("ann"), await turn("ann"), await turn("bob")] == [1, 2, 1]


async def test_errors_reported_in_results_are_retried_through_a_classifier() -> None:
    attempts: list[int] = []

    def book(seats: int) -> dict[str, Any]:
        """Books seats; reports failure in its result."""
        attempts.append(seats)
        if seats > 2:
            return {"status": "error", "message": f"only 2 seats left, asked {seats}"}
        return {"status": "ok", "booked": seats}

    def classify(*, tool: BaseTool, tool_args: dict, tool_context: ToolContext, result: Any):
        if isinstance(result, dict) and result.get("status") == "error":
            return ToolResultClassification(status="ERROR", error_message=result["message"])
        return None

    script = [function_call("book", {"seats": 4}), function_call("book", {"seats": 2}), "ok"]
    agent = LlmAgent(name="a", model=ScriptedModel(script), tools=[book])
    plugin = ReflectAndRetryToolPlugin(max_retries=2, tool_result_classifier=classify)
    runner = TestRunner(agent, plugins=[plugin])

    events = await runner.run("Book 4 seats")

    first, second = responses(events)
    assert first["response_type"] == RESPONSE_TYPE
    assert first["error_details"] == "only 2 seats left, asked 4"
    assert second == {"status": "ok", "booked": 2}
    assert attempts == [4, 2]
    assert events[-1].actions.agent_outcome is None  # recovered: no failure recorded


async def test_extract_error_from_result_can_be_overridden_and_raises_past_the_limit() -> None:
    class StatusAware(ReflectAndRetryToolPlugin):
        async def extract_error_from_result(self, *, tool, tool_args, tool_context, result):
            return result if result.get("status") == "error" else None

    def lookup() -> dict[str, Any]:
        """Never finds anything."""
        return {"status": "error", "message": "not found"}

    agent = LlmAgent(name="a", model=ScriptedModel([function_call("lookup")] * 2), tools=[lookup])
    runner = TestRunner(agent, plugins=[StatusAware(max_retries=1)])

    with pytest.raises(RuntimeError) as raised:
        await runner.run("go")
    cause = raised.value.__cause__
    assert type(cause).__name__ == "ToolResultError"
    assert "not found" in str(cause)


async def test_max_retries_zero_raises_at_once_and_bad_arguments_are_refused() -> None:
    tool = Flaky(failures=1)
    agent = LlmAgent(
        name="a", model=ScriptedModel([function_call("fetch", {"city": "x"})]), tools=[tool.fetch]
    )
    runner = TestRunner(agent, plugins=[ReflectAndRetryToolPlugin(max_retries=0)])
    with pytest.raises(RuntimeError) as raised:
        await runner.run("go")
    assert isinstance(raised.value.__cause__, ConnectionError)

    with pytest.raises(ValueError, match="max_retries must be a non-negative integer"):
        ReflectAndRetryToolPlugin(max_retries=-1)
    with pytest.raises(ValueError, match="tracking_scope must be a TrackingScope"):
        ReflectAndRetryToolPlugin(tracking_scope="global")  # type: ignore[arg-type]

    async def async_classifier(**kwargs: Any) -> None:
        return None

    with pytest.raises(ValueError, match="must be synchronous"):
        ReflectAndRetryToolPlugin(tool_result_classifier=async_classifier)
    with pytest.raises(ValueError, match="keyword arguments tool, tool_args"):
        ReflectAndRetryToolPlugin(tool_result_classifier=lambda result: None)
    with pytest.raises(ValueError, match="status must be 'OK' or 'ERROR'"):
        ToolResultClassification(status="FAILED")  # type: ignore[arg-type]


async def test_a_budget_still_bounds_the_retries() -> None:
    tool = Flaky(failures=100)
    agent = LlmAgent(name="a", model=FunctionModel(retry_until_answer), tools=[tool.fetch])
    runner = TestRunner(agent, plugins=[ReflectAndRetryToolPlugin(max_retries=10)])

    events = await runner.run("go", run_config=RunConfig(budget=Budget(tool_calls=3)))

    assert events[-1].error_code == BUDGET_EXCEEDED
    assert "tool_calls" in events[-1].error_message
    assert len(tool.calls) == 3


async def test_the_agents_tool_retry_policy_runs_before_the_plugin_sees_an_error() -> None:
    tool = Flaky(failures=1)
    agent = LlmAgent(
        name="a",
        model=FunctionModel(retry_until_answer),
        tools=[tool.fetch],
        tool_retry=RetryPolicy(initial_delay=0, retry_on=(ConnectionError,)),
    )
    runner = TestRunner(agent, plugins=[ReflectAndRetryToolPlugin(max_retries=1)])

    events = await runner.run("go")

    assert responses(events) == [{"city": "Paris", "sky": "clear"}]  # no guidance needed
    assert len(tool.calls) == 2


async def test_a_classifier_that_fails_is_ignored_with_a_warning(
    caplog: pytest.LogCaptureFixture,
) -> None:
    def broken_classifier(*, tool, tool_args, tool_context, result):
        raise KeyError("bug in classifier")

    def ok() -> dict[str, Any]:
        """Works."""
        return {"fine": True}

    agent = LlmAgent(name="a", model=ScriptedModel([function_call("ok"), "done"]), tools=[ok])
    plugin = ReflectAndRetryToolPlugin(tool_result_classifier=broken_classifier)
    events = await TestRunner(agent, plugins=[plugin]).run("go")

    assert responses(events) == [{"fine": True}]
    assert "tool_result_classifier failed" in caplog.text and "tool ok" in caplog.text


def test_importing_pyadk_plugins_does_not_load_the_built_in_plugins() -> None:
    import subprocess
    import sys

    code = (
        "import sys, pyadk.plugins as p\n"
        "loaded = [m for m in sys.modules if m.startswith('pyadk.plugins.')]\n"
        "assert sorted(loaded) == ['pyadk.plugins.base_plugin', 'pyadk.plugins.plugin_manager'],"
        " loaded\n"
        "assert p.ReflectAndRetryToolPlugin.__module__.endswith('.reflect_retry_tool_plugin')\n"
        "assert p.ToolResultClassification.__module__ == 'pyadk.plugins._callback_helpers'\n"
        "try:\n    p.NoSuchPlugin\nexcept AttributeError as e:\n    print(e)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "module 'pyadk.plugins' has no attribute 'NoSuchPlugin'" in done.stdout


async def test_the_plugin_answers_before_the_agents_own_error_callback() -> None:
    seen: list[str] = []

    def agent_callback(*, tool: BaseTool, args: dict, tool_context: ToolContext, error: Exception):
        seen.append(str(error))
        return {"handled_by": "agent"}

    tool = Flaky(failures=1)
    agent = LlmAgent(
        name="a",
        model=FunctionModel(retry_until_answer),
        tools=[tool.fetch],
        on_tool_error_callback=agent_callback,
    )
    events = await TestRunner(agent, plugins=[ReflectAndRetryToolPlugin()]).run("go")
    assert responses(events)[0]["response_type"] == RESPONSE_TYPE
    assert seen == []  # plugins run first; the first answer wins

    # Without the plugin, the agent's callback answers as before.
    agent = LlmAgent(
        name="b",
        model=ScriptedModel([function_call("fetch", {"city": "x"}), "ok"]),
        tools=[Flaky(failures=1).fetch],
        on_tool_error_callback=agent_callback,
    )
    events = await TestRunner(agent).run("go")
    assert responses(events) == [{"handled_by": "agent"}]


async def test_a_given_up_tool_error_is_absorbed_by_a_failure_policy() -> None:
    from pyadk.agents import SequentialAgent

    first = LlmAgent(
        name="first",
        model=FunctionModel(retry_until_answer),
        tools=[Flaky(failures=100).fetch],
    )
    second_model = ScriptedModel(["second ran"])
    sequence = SequentialAgent(
        name="seq",
        sub_agents=[first, LlmAgent(name="second", model=second_model)],
        on_failure="continue",
    )
    runner = TestRunner(sequence, plugins=[ReflectAndRetryToolPlugin(max_retries=1)])

    events = await runner.run("go")

    assert [e.text for e in events if e.author == "second" and e.text] == ["second ran"]
    outcome = (await runner.state())["outcome:first"]
    assert outcome["status"] == "failure" and outcome["error_type"] == "RuntimeError"
    assert "weather service down (call 2)" in outcome["reason"]


async def test_in_a_workflow_a_tool_nodes_failure_is_answered_as_its_output() -> None:
    from pyadk.tools import FunctionTool
    from pyadk.workflow import START, Workflow, node_output

    def fragile(x: int) -> int:
        """Fails."""
        raise ValueError(f"cannot handle {x}")

    flow = Workflow(name="wf", edges=[(START, FunctionTool(fragile))])
    runner = TestRunner(flow, plugins=[ReflectAndRetryToolPlugin(max_retries=1)])

    events = await runner.run('{"x": 1}')

    output = node_output(events[-1])
    assert output["response_type"] == RESPONSE_TYPE and output["error_type"] == "ValueError"
