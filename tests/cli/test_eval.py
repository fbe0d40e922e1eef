"""`pyadk eval AGENT_DIR EVAL_SET_FILE[:ids]`: verdicts, exit status, history, errors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pyadk.cli.eval_cmd import split_eval_set_arg
from pyadk.evaluation import EvalSetResult, EvalStatus

WEATHER = """
from pyadk.agents import LlmAgent
from pyadk.testing import FunctionModel, function_call

FORECASTS = {"Paris": "sunny", "London": "rainy"}


def get_weather(city: str) -> dict:
    \"\"\"The forecast for a city.\"\"\"
    return {"city": city, "forecast": FORECASTS.get(city, "unknown")}


def reply(request):
    last = request.contents[-1]
    results = [p.function_response.response for p in last.parts or [] if p.function_response]
    if results:
        return " ".join(f"It is {r['forecast']} in {r['city']}." for r in results)
    text = last.parts[0].text or ""
    if "boom" in text:
        raise RuntimeError("model is down")
    if "at home" in text:
        text = request.system_instruction_text()
    calls = [function_call("get_weather", {"city": c}) for c in FORECASTS if c in text]
    return calls or "I can only tell the weather."


root_agent = LlmAgent(
    name="weather",
    model=FunctionModel(reply),
    instruction="You tell the weather. The user lives in {home_city?}.",
    tools=[get_weather],
)
"""

TRAJECTORY_ONLY = {"criteria": {"tool_trajectory_avg_score": 1.0}}
IN_ORDER = {"criteria": {"tool_trajectory_avg_score": {"threshold": 1.0, "match_type": "IN_ORDER"}}}


def case(
    eval_id: str,
    query: str,
    calls: list[tuple[str, dict[str, Any]]],
    response: str,
    state: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """One eval case in google-adk's camelCase format (a one-turn conversation)."""
    return {
        "evalId": eval_id,
        "conversation": [
            {
                "userContent": {"role": "user", "parts": [{"text": query}]},
                "finalResponse": {"role": "model", "parts": [{"text": response}]},
                "intermediateData": {
                    "toolUses": [{"name": name, "args": args} for name, args in calls]
                },
            }
        ],
        "sessionInput": {"appName": "weather", "userId": "alice", "state": state or {}},
    }


PARIS = case(
    "paris", "Weather in Paris?", [("get_weather", {"city": "Paris"})], "It is sunny in Paris."
)
LONDON = case(
    "london", "Weather in London?", [("get_weather", {"city": "London"})], "It is rainy in London."
)
WRONG_ARGS = case(
    "wrong_args",
    "Weather in London?",
    [("get_weather", {"city": "Paris"})],
    "It is rainy in London.",
)
BOTH = case(  # the agent also looks up London: an extra call EXACT refuses, IN_ORDER allows
    "both",
    "Weather in Paris and London?",
    [("get_weather", {"city": "Paris"})],
    "It is sunny in Paris. It is rainy in London.",
)
BOOM = case("boom", "boom", [], "Never said.")


def write_set(folder: Path, name: str, cases: list[dict[str, Any]], set_id: str = "") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.evalset.json"
    path.write_text(json.dumps({"evalSetId": set_id or name, "evalCases": cases}))
    return path


def statuses(stdout: str) -> dict[tuple[str, str], str]:
    """(eval set, eval id) -> status, from the rows of the summary table."""
    rows = {}
    for line in stdout.splitlines():
        cells = line.split()
        if len(cells) >= 3 and cells[2] in {s.name for s in EvalStatus}:
            rows[(cells[0], cells[1])] = cells[2]
    return rows


def history_files(agents_dir: Path, app: str = "weather") -> list[Path]:
    return sorted((agents_dir / app / ".adk" / "eval_history").glob("*.evalset_result.json"))


@pytest.fixture
def weather(write_agent) -> Path:
    return write_agent("weather", WEATHER)


def assert_one_line_error(result, *fragments: str) -> None:
    assert "Traceback" not in result.stderr, result.stderr
    errors = [line for line in result.stderr.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1, result.stderr
    for fragment in fragments:
        assert fragment in errors[0], result.stderr


def test_passing_set_exits_0_and_saves_history(run_cli, weather, tmp_path):
    write_set(tmp_path / "evals", "trip", [PARIS, LONDON])
    result = run_cli("eval", "weather", "evals/trip.evalset.json")
    assert result.returncode == 0, result.stdout + result.stderr
    assert statuses(result.stdout) == {("trip", "paris"): "PASSED", ("trip", "london"): "PASSED"}
    lines = result.stdout.splitlines()
    assert lines[-1] == "2 passed, 0 failed"
    # both default metrics are in the table, with their thresholds
    assert any("tool_trajectory_avg_score   1.000" in line for line in lines)
    assert any("response_match_score        1.000        0.8" in line for line in lines)

    [saved] = history_files(tmp_path)
    assert f"Results of trip saved to {saved}" in result.stdout
    history = EvalSetResult.model_validate_json(saved.read_text())
    assert history.eval_set_id == "trip"
    assert [(r.eval_id, r.final_eval_status) for r in history.eval_case_results] == [
        ("paris", EvalStatus.PASSED),
        ("london", EvalStatus.PASSED),
    ]
    # the user id comes from the case's sessionInput
    assert {r.user_id for r in history.eval_case_results} == {"alice"}
    assert history.eval_case_results[0].eval_set_file == "evals/trip.evalset.json"


def test_failing_case_exits_1_and_details_name_expected_and_actual_calls(
    run_cli, weather, tmp_path
):
    write_set(tmp_path, "trip", [PARIS, WRONG_ARGS])
    result = run_cli("eval", "weather", "trip.evalset.json", "--print_detailed_results")
    assert result.returncode == 1, result.stdout + result.stderr
    assert statuses(result.stdout) == {
        ("trip", "paris"): "PASSED",
        ("trip", "wrong_args"): "FAILED",
    }
    out = result.stdout
    assert "trip/wrong_args: tool_trajectory_avg_score 0.000 < 1.0 (passed 0/1 runs)" in out
    details = out[out.index("trip/wrong_args: FAILED") :]
    assert "    user: Weather in London?" in details
    assert "    expected tool calls: get_weather(city='Paris')" in details
    assert "    actual tool calls: get_weather(city='London')" in details
    assert "    expected response: It is rainy in London." in details
    assert "    actual response: It is rainy in London." in details
    assert (
        "    tool_trajectory_avg_score: 0.000 (threshold 1.0) FAILED (reason: call 1: expected "
        "get_weather(city='Paris'), got get_weather(city='London'); match_type: EXACT)"
    ) in details
    assert "    response_match_score: 1.000 (threshold 0.8) PASSED" in details
    assert out.splitlines()[-1] == "1 passed, 1 failed"
    # without the flag the invocations are not printed
    plain = run_cli("eval", "weather", "trip.evalset.json", "--no-history")
    assert "expected tool calls" not in plain.stdout and plain.returncode == 1


def test_ids_after_a_colon_select_the_cases_to_run(run_cli, weather, tmp_path):
    write_set(tmp_path, "trip", [PARIS, WRONG_ARGS, LONDON])
    result = run_cli("eval", "weather", "trip.evalset.json:london,paris", "--no_history")
    assert result.returncode == 0, result.stdout + result.stderr
    # the set's order, not the argument's; the failing case did not run
    assert list(statuses(result.stdout)) == [("trip", "paris"), ("trip", "london")]
    assert "wrong_args" not in result.stdout


def test_an_unknown_eval_id_is_a_usage_error_naming_it(run_cli, weather, tmp_path):
    write_set(tmp_path, "trip", [PARIS, LONDON])
    result = run_cli("eval", "weather", "trip.evalset.json:paris,rome")
    assert result.returncode == 2
    assert_one_line_error(result, "no eval case rome", "(it has: london, paris)")
    assert result.stdout == "" and history_files(tmp_path) == []


def test_split_eval_set_arg_splits_on_the_last_colon_before_an_existing_file(tmp_path, monkeypatch):
    import click

    monkeypatch.chdir(tmp_path)
    Path("plain.evalset.json").write_text("{}")
    Path("odd:name.evalset.json").write_text("{}")
    assert split_eval_set_arg("plain.evalset.json") == (Path("plain.evalset.json"), [])
    assert split_eval_set_arg("plain.evalset.json:a, b") == (Path("plain.evalset.json"), ["a", "b"])
    assert split_eval_set_arg("odd:name.evalset.json") == (Path("odd:name.evalset.json"), [])
    assert split_eval_set_arg("odd:name.evalset.json:a") == (Path("odd:name.evalset.json"), ["a"])
    with pytest.raises(click.BadParameter, match="not found: odd"):
        split_eval_set_arg("odd:missing.json")
    with pytest.raises(click.BadParameter, match="names no eval ids"):
        split_eval_set_arg("plain.evalset.json:")


def test_a_test_config_beside_the_file_sets_the_criteria(run_cli, weather, tmp_path):
    strict = write_set(tmp_path / "strict", "calls", [BOTH])
    relaxed = write_set(tmp_path / "relaxed", "calls", [BOTH], set_id="calls_in_order")
    (relaxed.parent / "test_config.json").write_text(json.dumps(IN_ORDER))
    result = run_cli(
        "eval", "weather", str(strict), str(relaxed), "--print-detailed-results", "--no-history"
    )
    assert result.returncode == 1, result.stdout + result.stderr
    assert statuses(result.stdout) == {
        ("calls", "both"): "FAILED",  # default criteria: EXACT
        ("calls_in_order", "both"): "PASSED",
    }
    assert "expected 1 tool calls, got 2" in result.stdout
    assert "match_type: EXACT" in result.stdout
    # the relaxed set is scored on its config's one metric only
    relaxed_details = result.stdout[result.stdout.index("calls_in_order/both: PASSED") :]
    assert "response_match_score" not in relaxed_details
    assert result.stdout.splitlines()[-1] == "1 passed, 1 failed"


def test_config_file_path_overrides_the_config_beside_the_file(run_cli, weather, tmp_path):
    path = write_set(tmp_path / "evals", "calls", [BOTH])
    (path.parent / "test_config.json").write_text(json.dumps(IN_ORDER))
    (tmp_path / "strict.json").write_text(json.dumps(TRAJECTORY_ONLY))
    beside = run_cli("eval", "weather", str(path), "--no-history")
    assert beside.returncode == 0, beside.stdout + beside.stderr
    override = run_cli(
        "eval", "weather", str(path), "--config_file_path", "strict.json", "--no-history"
    )
    assert override.returncode == 1, override.stdout + override.stderr
    assert statuses(override.stdout) == {("calls", "both"): "FAILED"}
    assert "response_match_score" not in override.stdout


@pytest.mark.parametrize(
    ("content", "fragments"),
    [
        ('{"evalSetId": "trip", ', ["Cannot read eval set bad.evalset.json"]),
        (
            '{"evalSetId": "trip", "evalCases": [{"conversation": []}]}',
            ["Invalid eval set bad.evalset.json", "evalCases.0.evalId: Field required"],
        ),
        ('[{"reference": "no query"}]', ["Invalid eval data in bad.evalset.json", "query"]),
        ("[1]", ["Invalid eval data in bad.evalset.json"]),
    ],
)
def test_a_malformed_eval_file_is_one_line_error(run_cli, weather, tmp_path, content, fragments):
    (tmp_path / "bad.evalset.json").write_text(content)
    result = run_cli("eval", "weather", "bad.evalset.json")
    assert result.returncode == 1
    assert_one_line_error(result, *fragments)
    assert result.stdout == ""


@pytest.mark.parametrize(
    ("config", "fragments"),
    [
        (
            '{"criteria": {"tool_trajectory_avg_score": 1.0, "safety": 0.5}}',
            ["cfg.json: Unknown metric 'safety'", "known: response_match_score"],
        ),
        ('{"criteria": {', ["Cannot read eval config cfg.json"]),
        (
            '{"criteria": {"tool_trajectory_avg_score": {"threshold": 1, "match_type": "FUZZY"}}}',
            ["Invalid eval config cfg.json", "unknown match_type 'FUZZY'"],
        ),
    ],
)
def test_a_bad_config_is_one_line_error_before_anything_runs(
    run_cli, weather, tmp_path, config, fragments
):
    write_set(tmp_path, "trip", [PARIS])
    (tmp_path / "cfg.json").write_text(config)
    result = run_cli("eval", "weather", "trip.evalset.json", "--config-file-path", "cfg.json")
    assert result.returncode == 1
    assert_one_line_error(result, *fragments)
    assert result.stdout == "" and history_files(tmp_path) == []


def test_missing_agent_dir_and_missing_eval_file(run_cli, weather, tmp_path):
    write_set(tmp_path, "trip", [PARIS])
    no_agent = run_cli("eval", "nowhere", "trip.evalset.json")
    assert no_agent.returncode == 1
    assert_one_line_error(no_agent, "Agent directory not found", "nowhere")
    no_file = run_cli("eval", "weather", "trip.evalset.json", "missing.evalset.json")
    assert no_file.returncode == 2
    assert_one_line_error(no_file, "eval set file not found: missing.evalset.json")
    assert history_files(tmp_path) == []  # nothing ran, not even the good file


def test_an_older_format_test_json_file_works(run_cli, weather, tmp_path):
    rows = [
        {
            "query": "Weather in Paris?",
            "expected_tool_use": [{"tool_name": "get_weather", "tool_input": {"city": "Paris"}}],
            "reference": "It is sunny in Paris.",
        },
        {
            "query": "And in London?",
            "expected_tool_use": [{"tool_name": "get_weather", "tool_input": {"city": "London"}}],
            "reference": "It is rainy in London.",
        },
    ]
    (tmp_path / "weather.test.json").write_text(json.dumps(rows))
    result = run_cli("eval", "weather", "weather.test.json")
    assert result.returncode == 0, result.stdout + result.stderr
    assert statuses(result.stdout) == {("weather.test.json", "weather.test.json"): "PASSED"}
    [saved] = history_files(tmp_path)
    [case_result] = EvalSetResult.model_validate_json(saved.read_text()).eval_case_results
    assert len(case_result.eval_metric_result_per_invocation) == 2  # one session, two turns


def test_the_session_state_of_each_case_reaches_the_agent(run_cli, weather, tmp_path):
    home = [("get_weather", {"city": "London"})]
    cases = [
        case(
            "home_london",
            "Weather at home?",
            home,
            "It is rainy in London.",
            {"home_city": "London"},
        ),
        case(
            "home_paris",
            "Weather at home?",
            [("get_weather", {"city": "Paris"})],
            "It is sunny in Paris.",
            {"home_city": "Paris"},
        ),
    ]
    write_set(tmp_path, "home", cases)
    result = run_cli("eval", "weather", "home.evalset.json", "--print_detailed_results")
    assert result.returncode == 0, result.stdout + result.stderr
    assert statuses(result.stdout) == {
        ("home", "home_london"): "PASSED",
        ("home", "home_paris"): "PASSED",
    }
    assert "actual tool calls: get_weather(city='London')" in result.stdout


def test_an_agent_that_raises_fails_its_case_and_the_others_still_run(run_cli, weather, tmp_path):
    write_set(tmp_path, "trip", [BOOM, PARIS])
    result = run_cli("eval", "weather", "trip.evalset.json", "--print_detailed_results")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "Traceback" not in result.stdout + result.stderr
    assert statuses(result.stdout) == {("trip", "boom"): "FAILED", ("trip", "paris"): "PASSED"}
    assert "trip/boom: run 1: RuntimeError: model is down" in result.stdout
    details = result.stdout[result.stdout.index("trip/boom: FAILED") :]
    assert details.splitlines()[1] == "  error: RuntimeError: model is down"
    [saved] = history_files(tmp_path)
    boom = EvalSetResult.model_validate_json(saved.read_text()).eval_case_results[0]
    assert boom.error == "RuntimeError: model is down"


def test_no_history_writes_nothing(run_cli, weather, tmp_path):
    write_set(tmp_path, "trip", [PARIS])
    result = run_cli("eval", "weather", "trip.evalset.json", "--no-history")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "saved to" not in result.stdout
    assert not (tmp_path / "weather" / ".adk").exists()


def test_num_runs_and_several_files_one_history_file_per_set(run_cli, weather, tmp_path):
    write_set(tmp_path, "paris", [PARIS])
    write_set(tmp_path, "london", [LONDON])
    result = run_cli(
        "eval", "weather", "paris.evalset.json", "london.evalset.json", "--num_runs", "2"
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert list(statuses(result.stdout)) == [("paris", "paris"), ("london", "london")]
    assert any(line.split()[-1] == "2/2" for line in result.stdout.splitlines() if "score" in line)
    saved = {
        r.eval_set_id: r
        for r in (EvalSetResult.model_validate_json(p.read_text()) for p in history_files(tmp_path))
    }
    assert set(saved) == {"paris", "london"}
    assert [r.run for r in saved["paris"].eval_case_results] == [1, 2]
    zero = run_cli("eval", "weather", "paris.evalset.json", "--num-runs", "0")
    assert zero.returncode == 2 and "--num-runs" in zero.stderr


def test_response_match_without_nltk_is_a_clear_error(run_cli, weather, tmp_path):
    blocker = tmp_path / "no_nltk" / "nltk"
    blocker.mkdir(parents=True)
    (blocker / "__init__.py").write_text("raise ImportError('nltk is not installed')\n")
    write_set(tmp_path / "evals", "trip", [PARIS])
    env = {"PYTHONPATH": str(blocker.parent)}
    result = run_cli("eval", "weather", "evals/trip.evalset.json", env=env)
    assert result.returncode == 1
    assert_one_line_error(result, "response_match_score", "pip install 'pyadk[eval]'")
    # a config without response_match_score does not need it
    (tmp_path / "evals" / "test_config.json").write_text(json.dumps(TRAJECTORY_ONLY))
    result = run_cli("eval", "weather", "evals/trip.evalset.json", env=env)
    assert result.returncode == 0, result.stdout + result.stderr


def test_piped_output_keeps_each_row_on_one_line_whatever_the_width(run_cli, weather, tmp_path):
    long_id = "paris_on_a_weekday_morning_before_the_market_opens"
    write_set(tmp_path, "a_long_eval_set_name", [{**PARIS, "evalId": long_id}])
    result = run_cli("eval", "weather", "a_long_eval_set_name.evalset.json", env={"COLUMNS": "60"})
    assert result.returncode == 0, result.stdout + result.stderr
    assert statuses(result.stdout) == {("a_long_eval_set_name", long_id): "PASSED"}
    assert any(line.split()[:1] == ["response_match_score"] for line in result.stdout.splitlines())


def test_expected_calls_recorded_as_invocation_events_are_scored_and_shown(
    run_cli, weather, tmp_path
):
    recorded = {  # google-adk 2.x records intermediate data as the invocation's events
        "invocationEvents": [
            {
                "author": "weather",
                "content": {
                    "role": "model",
                    "parts": [{"functionCall": {"name": "get_weather", "args": {"city": "Oslo"}}}],
                },
            }
        ]
    }
    oslo = case("oslo", "Weather in Paris?", [], "It is sunny in Paris.")
    oslo["conversation"][0]["intermediateData"] = recorded
    write_set(tmp_path, "events", [oslo])
    result = run_cli("eval", "weather", "events.evalset.json", "--print_detailed_results")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "    expected tool calls: get_weather(city='Oslo')" in result.stdout
    assert "    actual tool calls: get_weather(city='Paris')" in result.stdout


def test_a_case_no_metric_scores_is_not_evaluated_and_does_not_fail(run_cli, weather, tmp_path):
    write_set(tmp_path, "trip", [PARIS])
    (tmp_path / "none.json").write_text('{"criteria": {}}')
    result = run_cli("eval", "weather", "trip.evalset.json", "--config_file_path", "none.json")
    assert result.returncode == 0, result.stdout + result.stderr
    assert statuses(result.stdout) == {("trip", "paris"): "NOT_EVALUATED"}
    assert result.stdout.splitlines()[-1] == "0 passed, 0 failed, 1 not evaluated"


def test_recorded_tool_results_and_tool_fakes_replace_the_tools(run_cli, weather, tmp_path):
    # The recorded forecast differs from what the real tool says (sunny): with the flag
    # the agent answers from the recording; toolFakes apply with or without it.
    recorded = case(
        "recorded",
        "Weather in Paris?",
        [("get_weather", {"city": "Paris"})],
        "It is foggy with drizzle and a cold wind in Paris.",
    )
    data = recorded["conversation"][0]["intermediateData"]
    data["toolUses"][0]["id"] = "c1"
    data["toolResponses"] = [
        {
            "id": "c1",
            "name": "get_weather",
            "response": {"city": "Paris", "forecast": "foggy with drizzle and a cold wind"},
        }
    ]
    faked = case(
        "faked",
        "Weather in London?",
        [("get_weather", {"city": "London"})],
        "It is snowy in London.",
    )
    faked["toolFakes"] = [
        {"name": "get_weather", "response": {"city": "London", "forecast": "snowy"}}
    ]
    write_set(tmp_path, "trip", [recorded, faked])

    plain = run_cli("eval", "weather", "trip.evalset.json", "--no-history")
    assert statuses(plain.stdout) == {("trip", "recorded"): "FAILED", ("trip", "faked"): "PASSED"}
    replayed = run_cli(
        "eval", "weather", "trip.evalset.json", "--no-history", "--fake-recorded-tools"
    )
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr
    assert statuses(replayed.stdout) == {
        ("trip", "recorded"): "PASSED",
        ("trip", "faked"): "PASSED",
    }
