"""Running eval cases against real agents (offline models): what is recorded, how runs
are scored, files in both formats, AgentEvaluator and the results history."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from pyadk.agents import LlmAgent, SequentialAgent
from pyadk.evaluation import (
    AgentEvaluator,
    EvalCase,
    EvalConfig,
    EvalSet,
    EvalSetFileError,
    EvalSetResult,
    EvalStatus,
    LocalEvalSetResultsManager,
    eval_set_files,
    evaluate_eval_set,
    get_eval_metrics_from_config,
    load_eval_set,
    summarize,
)
from pyadk.models import LlmRequest
from pyadk.testing import FunctionModel, function_call

WEATHER = {"Paris": "sunny", "Oslo": "snowing"}


def get_weather(city: str) -> dict[str, str]:
    """The sky over ``city``."""
    if city not in WEATHER:
        raise ValueError(f"no weather for {city}")
    return {"city": city, "sky": WEATHER[city]}


def _last_user_text(request: LlmRequest) -> str:
    for content in reversed(request.contents):
        for part in content.parts or ():
            if content.role == "user" and part.text:
                return part.text
    return ""


def weather_model(request: LlmRequest) -> Any:
    """Asks the tool about the city named last, then answers from its result."""
    last = request.contents[-1].parts[0]
    if last.function_response is not None:
        result = last.function_response.response
        return f"It is {result['sky']} in {result['city']}."
    words = _last_user_text(request).rstrip("?").split()
    return function_call("get_weather", {"city": words[-1]})


def weather_agent() -> LlmAgent:
    return LlmAgent(name="weather", model=FunctionModel(weather_model), tools=[get_weather])


def text(value: str, role: str = "user") -> dict[str, Any]:
    return {"role": role, "parts": [{"text": value}]}


def turn(question: str, answer: str, calls: list[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
    return {
        "invocationId": "recorded",
        "userContent": text(question),
        "finalResponse": text(answer, "model"),
        "intermediateData": {"toolUses": [{"name": n, "args": a} for n, a in calls]},
    }


def eval_set(*cases: dict[str, Any]) -> EvalSet:
    return EvalSet.model_validate({"evalSetId": "weather_set", "evalCases": list(cases)})


PARIS = turn("Weather in Paris?", "It is sunny in Paris.", [("get_weather", {"city": "Paris"})])
OSLO = turn("And in Oslo?", "It is snowing in Oslo.", [("get_weather", {"city": "Oslo"})])
METRICS = get_eval_metrics_from_config(EvalConfig())


async def test_a_faithful_conversation_passes_and_records_what_happened() -> None:
    results = await evaluate_eval_set(
        weather_agent(), eval_set({"evalId": "two_turns", "conversation": [PARIS, OSLO]}), METRICS
    )
    [result] = results
    assert result.final_eval_status is EvalStatus.PASSED, result
    assert result.eval_set_id == "weather_set" and result.eval_id == "two_turns"
    assert [(m.metric_name, m.score) for m in result.overall_eval_metric_results] == [
        ("tool_trajectory_avg_score", 1.0),
        ("response_match_score", 1.0),
    ]
    first, second = result.eval_metric_result_per_invocation
    actual = second.actual_invocation
    assert actual.final_response is not None
    assert actual.final_response.parts[0].text == "It is snowing in Oslo."
    assert actual.intermediate_data is not None
    [used] = actual.intermediate_data.tool_uses
    assert (used.name, used.args) == ("get_weather", {"city": "Oslo"})
    [answered] = actual.intermediate_data.tool_responses
    assert answered.response == {"city": "Oslo", "sky": "snowing"}
    assert actual.invocation_id and actual.invocation_id != first.actual_invocation.invocation_id
    assert second.expected_invocation is not None
    assert second.expected_invocation.invocation_id == "recorded"
    assert [r.eval_status for r in second.eval_metric_results] == [EvalStatus.PASSED] * 2


async def test_wrong_expectations_fail_with_details() -> None:
    wrong = turn("Weather in Paris?", "Rain all day.", [("get_weather", {"city": "paris"})])
    [result] = await evaluate_eval_set(
        weather_agent(), eval_set({"evalId": "wrong", "conversation": [wrong]}), METRICS
    )
    assert result.final_eval_status is EvalStatus.FAILED
    trajectory, response = result.eval_metric_result_per_invocation[0].eval_metric_results
    assert trajectory.eval_status is EvalStatus.FAILED
    assert trajectory.details["reason"] == (
        "call 1: expected get_weather(city='paris'), got get_weather(city='Paris')"
    )
    assert response.score == 0.0 and response.details["actual"] == "It is sunny in Paris."


async def test_session_input_state_reaches_the_agent() -> None:
    agent = LlmAgent(
        name="greeter",
        model=FunctionModel(
            lambda r: "Hello Ada" if "Ada" in r.config.system_instruction else "Hello stranger"
        ),
        instruction="{user_name}",
    )
    case = {
        "evalId": "with_state",
        "sessionInput": {"appName": "greeter", "userId": "ada", "state": {"user_name": "Ada"}},
        "conversation": [turn("hi", "Hello Ada", [])],
    }
    [result] = await evaluate_eval_set(agent, eval_set(case), METRICS)
    assert result.final_eval_status is EvalStatus.PASSED, result
    assert result.user_id == "ada"


async def test_a_failing_agent_fails_its_case_and_the_others_still_run() -> None:
    broken = turn("Weather in Atlantis?", "", [("get_weather", {"city": "Atlantis"})])

    def model(request: LlmRequest) -> Any:
        if "Atlantis" in _last_user_text(request):
            raise ConnectionError("model endpoint refused")
        return weather_model(request)

    agent = LlmAgent(name="weather", model=FunctionModel(model), tools=[get_weather])
    results = await evaluate_eval_set(
        agent,
        eval_set(
            {"evalId": "broken", "conversation": [broken]},
            {"evalId": "fine", "conversation": [PARIS]},
        ),
        METRICS,
    )
    assert [(r.eval_id, r.final_eval_status) for r in results] == [
        ("broken", EvalStatus.FAILED),
        ("fine", EvalStatus.PASSED),
    ]
    assert results[0].error is not None and "model endpoint refused" in results[0].error
    assert results[0].overall_eval_metric_results == []


async def test_num_runs_repeat_each_case_on_new_sessions_and_summaries_average() -> None:
    answers = iter(["It is sunny in Paris.", "Cloudy, no idea."])

    def flaky(request: LlmRequest) -> Any:
        if request.contents[-1].parts[0].function_response is not None:
            return next(answers)
        return weather_model(request)

    agent = LlmAgent(name="weather", model=FunctionModel(flaky), tools=[get_weather])
    results = await evaluate_eval_set(
        agent, eval_set({"evalId": "paris", "conversation": [PARIS]}), METRICS, num_runs=2
    )
    assert [r.run for r in results] == [1, 2]
    assert len({r.session_id for r in results}) == 2
    [case] = summarize(results)
    trajectory, response = case.metrics
    assert (trajectory.mean_score, trajectory.passed_runs, trajectory.runs) == (1.0, 2, 2)
    assert response.passed_runs == 1 and response.mean_score == pytest.approx(0.5)
    assert response.stdev == pytest.approx(0.5)
    assert case.status is EvalStatus.FAILED
    with pytest.raises(ValueError, match="num_runs must be at least 1"):
        await evaluate_eval_set(agent, eval_set(), METRICS, num_runs=0)


async def test_a_sub_agents_answer_is_an_intermediate_response() -> None:
    researcher = LlmAgent(name="researcher", model=FunctionModel(lambda r: "Facts: 42."))
    writer = LlmAgent(name="writer", model=FunctionModel(lambda r: "The answer is 42."))
    pipeline = SequentialAgent(name="pipeline", sub_agents=[researcher, writer])
    case = {"evalId": "seq", "conversation": [turn("Question?", "The answer is 42.", [])]}
    [result] = await evaluate_eval_set(pipeline, eval_set(case), METRICS)
    actual = result.eval_metric_result_per_invocation[0].actual_invocation
    assert actual.intermediate_data is not None
    [(author, parts)] = actual.intermediate_data.intermediate_responses
    assert (author, parts[0].text) == ("researcher", "Facts: 42.")
    assert result.final_eval_status is EvalStatus.PASSED


async def test_unknown_metric_fails_before_the_agent_runs() -> None:
    calls: list[LlmRequest] = []
    agent = LlmAgent(name="a", model=FunctionModel(lambda r: calls.append(r) or "x"))
    bad = get_eval_metrics_from_config(EvalConfig(criteria={"bleu": 0.5}))
    with pytest.raises(ValueError, match="Unknown metric 'bleu'"):
        await evaluate_eval_set(agent, eval_set({"evalId": "c", "conversation": [PARIS]}), bad)
    assert calls == []


LEGACY = [
    {
        "query": "Weather in Paris?",
        "expected_tool_use": [{"tool_name": "get_weather", "tool_input": {"city": "Paris"}}],
        "reference": "It is sunny in Paris.",
    },
    {"query": "Thanks!", "expected_tool_use": [], "reference": "You are welcome."},
]


def test_loading_both_formats_and_selecting_cases(tmp_path: Path) -> None:
    legacy = tmp_path / "weather.test.json"
    legacy.write_text(json.dumps(LEGACY))
    converted = load_eval_set(legacy, {"state": {"unit": "C"}, "user_id": "u1"})
    [case] = converted.eval_cases
    assert case.eval_id == "weather.test.json" and len(case.conversation) == 2
    assert case.session_input is not None and case.session_input.state == {"unit": "C"}
    assert case.conversation[0].intermediate_data is not None
    assert case.conversation[0].intermediate_data.tool_uses[0].args == {"city": "Paris"}

    new = tmp_path / "weather.evalset.json"
    payload = {"evalSetId": "s", "evalCases": [{"evalId": "a"}, {"evalId": "b"}]}
    new.write_text(json.dumps(payload))
    assert [c.eval_id for c in load_eval_set(new).select(["b"]).eval_cases] == ["b"]
    with pytest.raises(ValueError, match="has no eval case zzz"):
        load_eval_set(new).select(["zzz"])
    assert eval_set_files(tmp_path) == [new, legacy]  # sorted by path


def test_bad_eval_files_name_the_problem(tmp_path: Path) -> None:
    path = tmp_path / "x.evalset.json"
    with pytest.raises(EvalSetFileError, match="not found"):
        load_eval_set(path)
    path.write_text("{")
    with pytest.raises(EvalSetFileError, match="Cannot read eval set"):
        load_eval_set(path)
    path.write_text(json.dumps({"evalSetId": "s", "evalCases": [{"evalId": 1, "typo": 2}]}))
    with pytest.raises(EvalSetFileError, match="Invalid eval set"):
        load_eval_set(path)
    path.write_text(json.dumps([{"expected_tool_use": []}]))  # no query
    with pytest.raises(EvalSetFileError, match=r"Invalid eval data.*missing 'query'"):
        load_eval_set(path)
    path.write_text("[1]")  # not objects
    with pytest.raises(EvalSetFileError, match=r"Invalid eval data"):
        load_eval_set(path)
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(EvalSetFileError, match=r"No \*\.test\.json"):
        eval_set_files(empty)
    with pytest.raises(EvalSetFileError, match="Eval data not found"):
        eval_set_files(tmp_path / "missing")


AGENT_MODULE = """
from pyadk.agents import LlmAgent
from pyadk.testing import FunctionModel, function_call

def get_weather(city: str) -> dict:
    \"\"\"The sky over a city.\"\"\"
    return {"city": city, "sky": "sunny"}

def reply(request):
    last = request.contents[-1].parts[0]
    if last.function_response is not None:
        return f"It is sunny in {last.function_response.response['city']}."
    return function_call("get_weather", {"city": last.text.rstrip("?").split()[-1]})

root_agent = LlmAgent(name="weather", model=FunctionModel(reply), tools=[get_weather])
"""


@pytest.fixture
def agent_package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    package = tmp_path / "eval_weather_pkg"
    package.mkdir()
    (package / "__init__.py").write_text("from . import agent\n")
    (package / "agent.py").write_text(textwrap.dedent(AGENT_MODULE))
    monkeypatch.syspath_prepend(str(tmp_path))
    yield package.name
    for name in [n for n in sys.modules if n.startswith(package.name)]:
        del sys.modules[name]


async def test_agent_evaluator_over_a_directory(tmp_path: Path, agent_package: str) -> None:
    data = tmp_path / "evals"
    data.mkdir()
    (data / "weather.test.json").write_text(json.dumps(LEGACY[:1]))
    (data / "test_config.json").write_text(json.dumps({"criteria": {"response_match_score": 0.9}}))
    await AgentEvaluator.evaluate(agent_package, data, num_runs=2, print_detailed_results=False)

    (data / "more.test.json").write_text(
        json.dumps([{"query": "Weather in Oslo?", "expected_tool_use": [], "reference": "x"}])
    )
    with pytest.raises(AssertionError) as failed:
        await AgentEvaluator.evaluate(agent_package, data, num_runs=1)
    assert "more.test.json: response_match_score 0.000 < 0.9 (passed 0/1 runs)" in str(failed.value)
    assert "tool_trajectory" not in str(failed.value)  # the config asked for ROUGE only


async def test_agent_evaluator_resolves_agents_and_checks_arguments(agent_package: str) -> None:
    case_set = eval_set({"evalId": "paris", "conversation": [PARIS]})
    await AgentEvaluator.evaluate_eval_set(
        agent_package, case_set, criteria={"tool_trajectory_avg_score": 1.0}, num_runs=1
    )
    await AgentEvaluator.evaluate_eval_set(weather_agent(), case_set, num_runs=1)
    with pytest.raises(ValueError, match="No agent named 'nobody' under 'weather'"):
        await AgentEvaluator.evaluate_eval_set(weather_agent(), case_set, agent_name="nobody")
    with pytest.raises(ValueError, match="criteria or eval_config, not both"):
        await AgentEvaluator.evaluate_eval_set(
            weather_agent(), case_set, criteria={}, eval_config=EvalConfig()
        )
    with pytest.raises(ValueError, match="has no root_agent"):
        await AgentEvaluator.evaluate_eval_set("json", case_set)


def test_migrating_an_old_file(tmp_path: Path) -> None:
    old, new = tmp_path / "old.test.json", tmp_path / "new.evalset.json"
    old.write_text(json.dumps(LEGACY))
    AgentEvaluator.migrate_eval_data_to_new_schema(old, new)
    written = json.loads(new.read_text())
    assert written["evalSetId"] == "old.test.json"
    first = written["evalCases"][0]["conversation"][0]
    assert first["userContent"]["parts"][0]["text"] == "Weather in Paris?"
    assert first["intermediateData"]["toolUses"][0]["name"] == "get_weather"
    assert load_eval_set(new).eval_cases[0].conversation[1].final_response is not None


async def test_results_history_round_trip(tmp_path: Path) -> None:
    results = await evaluate_eval_set(
        weather_agent(), eval_set({"evalId": "paris", "conversation": [PARIS]}), METRICS
    )
    manager = LocalEvalSetResultsManager(tmp_path)
    saved = manager.save_eval_set_result("weather", "weather_set", results)
    files = list((tmp_path / "weather" / ".adk" / "eval_history").glob("*.evalset_result.json"))
    assert [f.name for f in files] == [f"{saved.eval_set_result_id}.evalset_result.json"]
    assert manager.list_eval_set_results("weather") == [saved.eval_set_result_id]
    loaded = manager.get_eval_set_result("weather", saved.eval_set_result_id)
    assert isinstance(loaded, EvalSetResult) and loaded == saved
    assert loaded.eval_case_results[0].final_eval_status is EvalStatus.PASSED
    with pytest.raises(KeyError, match="No eval result"):
        manager.get_eval_set_result("weather", "../etc/passwd")
    assert manager.list_eval_set_results("other") == []


def test_eval_case_accepts_snake_and_camel_case() -> None:
    camel = EvalCase.model_validate(
        {"evalId": "a", "sessionInput": {"appName": "x", "userId": "u"}}
    )
    snake = EvalCase.model_validate(
        {"eval_id": "a", "session_input": {"app_name": "x", "user_id": "u"}}
    )
    assert camel == snake
    dumped = camel.model_dump(by_alias=True, exclude_none=True)
    assert dumped["evalId"] == "a" and dumped["sessionInput"]["userId"] == "u"


V2_PARIS = {  # google-adk 2.x records the expected calls as the invocation's events
    "userContent": text("Weather in Paris?"),
    "finalResponse": text("It is sunny in Paris.", "model"),
    "intermediateData": {
        "invocationEvents": [
            {
                "author": "weather",
                "content": {
                    "role": "model",
                    "parts": [{"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}}],
                },
                "usageMetadata": {"totalTokenCount": 12},
            }
        ]
    },
}


def test_google_adk_2_files_with_invocation_events_and_timings_load() -> None:
    invocation = {
        **V2_PARIS,
        "invocationId": "i1",
        "duration": 1.5,
        "modelDuration": 1.2,
        "toolDuration": 0.1,
        "rubrics": [{"rubricId": "r1", "rubricContent": {"textProperty": "Names the sky."}}],
        "appDetails": {"agentDetails": {}},
    }
    case = EvalCase.model_validate({"evalId": "v2", "conversation": [invocation]})
    from pyadk.evaluation import get_all_tool_calls

    [call] = get_all_tool_calls(case.conversation[0].intermediate_data)
    assert (call.name, call.args) == ("get_weather", {"city": "Paris"})
    assert case.conversation[0].duration == 1.5
    scenario = EvalCase.model_validate(
        {
            "evalId": "sim",
            "conversation": None,
            "conversationScenario": {"startingPrompt": "hi", "conversationPlan": "Say hi."},
        }
    )
    assert scenario.conversation == []


async def test_v2_expectations_score() -> None:
    results = await evaluate_eval_set(
        weather_agent(), eval_set({"evalId": "v2", "conversation": [V2_PARIS]}), METRICS
    )
    assert [r.final_eval_status for r in results] == [EvalStatus.PASSED]


async def test_toolsets_are_closed_unless_the_caller_keeps_the_agent() -> None:
    from pyadk.tools import BaseToolset

    class Counted(BaseToolset):
        closed = 0

        async def get_tools(self, readonly_context=None):  # type: ignore[no-untyped-def]
            return []

        async def close(self) -> None:
            Counted.closed += 1

    agent = LlmAgent(
        name="weather", model=FunctionModel(weather_model), tools=[get_weather, Counted()]
    )
    case_set = eval_set({"evalId": "paris", "conversation": [PARIS]})
    await evaluate_eval_set(agent, case_set, METRICS)
    assert Counted.closed == 1
    await evaluate_eval_set(agent, case_set, METRICS, close_toolsets=False)
    assert Counted.closed == 1


async def test_history_keeps_values_json_cannot_hold(tmp_path: Path) -> None:
    class Opaque:
        def __repr__(self) -> str:
            return "<opaque>"

    def lookup(city: str) -> dict[str, Any]:
        """Returns an object JSON cannot hold."""
        return {"city": city, "handle": Opaque()}

    def model(request: LlmRequest) -> Any:
        if request.contents[-1].parts[0].function_response is not None:
            return "done"
        return function_call("lookup", {"city": "Paris"})

    agent = LlmAgent(name="a", model=FunctionModel(model), tools=[lookup])
    case = {"evalId": "c", "conversation": [turn("q", "done", [("lookup", {"city": "Paris"})])]}
    results = await evaluate_eval_set(agent, eval_set(case), METRICS)
    saved = LocalEvalSetResultsManager(tmp_path).save_eval_set_result("a", "s", results)
    actual = saved.eval_case_results[0].eval_metric_result_per_invocation[0].actual_invocation
    assert actual.intermediate_data is not None
    assert actual.intermediate_data.tool_responses[0].response == {
        "city": "Paris",
        "handle": "<opaque>",
    }


async def test_tool_fakes_answer_instead_of_the_tools() -> None:
    ran: list[str] = []

    def get_weather(city: str) -> dict[str, str]:  # the real tool would call an API
        """The sky over ``city``."""
        ran.append(city)
        return {"city": city, "sky": "hidden under thick volcanic ash clouds"}

    agent = LlmAgent(name="weather", model=FunctionModel(weather_model), tools=[get_weather])
    faked = {
        "evalId": "faked",
        "toolFakes": [
            {
                "name": "get_weather",
                "args": {"city": "Paris"},
                "response": {"city": "Paris", "sky": "sunny"},
            },
            {"name": "get_weather", "response": {"city": "anywhere", "sky": "grey"}},
        ],
        "conversation": [
            PARIS,
            turn("In Rome?", "It is grey in anywhere.", [("get_weather", {"city": "Rome"})]),
        ],
    }
    [result] = await evaluate_eval_set(agent, eval_set(faked), METRICS)
    assert ran == [] and result.final_eval_status is EvalStatus.PASSED, result

    recorded = dict(PARIS)
    recorded["intermediateData"] = {
        "toolUses": [{"id": "c1", "name": "get_weather", "args": {"city": "Paris"}}],
        "toolResponses": [
            {"id": "c1", "name": "get_weather", "response": {"city": "Paris", "sky": "sunny"}}
        ],
    }
    case_set = eval_set({"evalId": "recorded", "conversation": [recorded]})
    [real] = await evaluate_eval_set(agent, case_set, METRICS)
    assert ran == ["Paris"] and real.final_eval_status is EvalStatus.FAILED  # the real sky
    [replayed] = await evaluate_eval_set(agent, case_set, METRICS, fake_recorded_tools=True)
    assert ran == ["Paris"] and replayed.final_eval_status is EvalStatus.PASSED


def test_legacy_mock_tool_output_becomes_a_fake(tmp_path: Path) -> None:
    path = tmp_path / "mocked.test.json"
    rows = [
        {
            "query": "Weather in Paris?",
            "expected_tool_use": [
                {
                    "tool_name": "get_weather",
                    "tool_input": {"city": "Paris"},
                    "mock_tool_output": "sunny",
                }
            ],
            "reference": "It is sunny in Paris.",
        }
    ]
    path.write_text(json.dumps(rows))
    [case] = load_eval_set(path).eval_cases
    [fake] = case.tool_fakes
    assert (fake.name, fake.args, fake.response) == (
        "get_weather",
        {"city": "Paris"},
        {"result": "sunny"},
    )
