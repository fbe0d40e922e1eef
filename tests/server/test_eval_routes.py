"""google-adk's eval routes over real HTTP: eval sets kept beside the agent, a recorded
session turned into an eval case, eval runs replaying it against the agent, and the
results history. The ``forecast`` app (fixtures/eval_agents) answers the same way every
time, so replaying what it did passes."""

from __future__ import annotations

import json
import shutil
import warnings
from collections.abc import AsyncGenerator, Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from server_support import LiveServer, run_body

from pyadk import types
from pyadk.agents import LlmAgent
from pyadk.models import BaseLlm, LLMRegistry, LlmRequest, LlmResponse
from pyadk.models import registry as registry_module
from pyadk.server import create_app
from pyadk.testing import ScriptedModel

FIXTURE_APP = Path(__file__).parent / "fixtures" / "eval_agents" / "forecast"
APP = "/apps/forecast"
PASSED, FAILED = 1, 2  # google-adk's EvalStatus values


@pytest.fixture
def agents_dir(tmp_path: Path) -> Path:
    """A fresh agents directory holding the forecast app: eval files land in tmp_path."""
    shutil.copytree(FIXTURE_APP, tmp_path / "forecast")
    return tmp_path


@pytest.fixture
def client(serve: Callable[[Any], LiveServer], agents_dir: Path) -> httpx.Client:
    return serve(create_app(agents_dir)).client()


def run_turn(client: httpx.Client, session_id: str, text: str) -> list[dict[str, Any]]:
    response = client.post("/run", json=run_body("forecast", "alice", session_id, text))
    assert response.status_code == 200, response.text
    return response.json()


def record_session(client: httpx.Client, session_id: str = "s1") -> None:
    """A two-turn conversation of alice, started with ``{"units": "metric"}``."""
    created = client.post(f"{APP}/users/alice/sessions/{session_id}", json={"units": "metric"})
    assert created.status_code == 200
    run_turn(client, session_id, "Weather in Paris?")
    run_turn(client, session_id, "And in Oslo?")


def add_session(client: httpx.Client, eval_id: str, session_id: str = "s1") -> httpx.Response:
    body = {"evalId": eval_id, "sessionId": session_id, "userId": "alice"}
    return client.post(f"{APP}/eval_sets/trips/add_session", json=body)


def case_with_set(client: httpx.Client, eval_id: str = "paris_oslo") -> None:
    assert client.post(f"{APP}/eval_sets/trips").status_code == 200
    record_session(client)
    assert add_session(client, eval_id).status_code == 200


def tool_calls(case: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    return [
        (use["name"], use["args"])
        for invocation in case["conversation"]
        for use in invocation["intermediateData"]["toolUses"]
    ]


def final_texts(case: dict[str, Any]) -> list[str]:
    return [i["finalResponse"]["parts"][0]["text"] for i in case["conversation"]]


def run_eval(client: httpx.Client, **body: Any) -> httpx.Response:
    return client.post(f"{APP}/eval_sets/trips/run_eval", json={"evalIds": [], **body})


def scores(result: dict[str, Any]) -> dict[str, tuple[float, int]]:
    return {
        m["metricName"]: (m["score"], m["evalStatus"]) for m in result["overallEvalMetricResults"]
    }


def test_create_and_list_eval_sets(client: httpx.Client, agents_dir: Path) -> None:
    assert client.get(f"{APP}/eval_sets").json() == []

    created = client.post(f"{APP}/eval_sets/trips")
    assert created.status_code == 200
    assert created.json()["evalSetId"] == "trips" and created.json()["evalCases"] == []
    assert client.post(f"{APP}/eval_sets/basics").status_code == 200

    assert client.get(f"{APP}/eval_sets").json() == ["basics", "trips"]
    stored = json.loads((agents_dir / "forecast" / "trips.evalset.json").read_text())
    assert stored["evalSetId"] == "trips" and stored["evalCases"] == []
    assert client.get(f"{APP}/eval_sets/trips").json()["evalSetId"] == "trips"

    duplicate = client.post(f"{APP}/eval_sets/trips")
    assert duplicate.status_code == 400
    assert duplicate.json()["detail"] == "Eval set 'trips' already exists for app 'forecast'."
    bad = client.post(f"{APP}/eval_sets/bad-id")
    assert bad.status_code == 400 and "letters, digits and underscores" in bad.json()["detail"]

    assert client.get("/apps/nope/eval_sets").status_code == 404
    assert client.post("/apps/nope/eval_sets/trips").status_code == 404
    assert not (agents_dir / "nope").exists()


def test_add_session_records_tool_calls_and_final_responses(client: httpx.Client) -> None:
    case_with_set(client)

    assert client.get(f"{APP}/eval_sets/trips/evals").json() == ["paris_oslo"]
    case = client.get(f"{APP}/eval_sets/trips/evals/paris_oslo").json()
    assert case["evalId"] == "paris_oslo"
    assert [i["userContent"]["parts"][0]["text"] for i in case["conversation"]] == [
        "Weather in Paris?",
        "And in Oslo?",
    ]
    assert tool_calls(case) == [
        ("get_forecast", {"city": "Paris"}),
        ("get_forecast", {"city": "Oslo"}),
    ]
    assert final_texts(case) == [
        "Tomorrow it will be sunny in Paris.",
        "Tomorrow it will be snowing in Oslo.",
    ]
    responses = case["conversation"][0]["intermediateData"]["toolResponses"]
    assert [r["response"] for r in responses] == [{"city": "Paris", "sky": "sunny"}]
    # The state it started from: "last_city" was set by the conversation, not before it.
    assert case["sessionInput"] == {
        "appName": "forecast",
        "userId": "alice",
        "state": {"units": "metric"},
    }

    duplicate = add_session(client, "paris_oslo")
    assert duplicate.status_code == 400
    assert duplicate.json()["detail"] == "Eval set 'trips' already has an eval case 'paris_oslo'."
    missing_session = add_session(client, "other", session_id="nope")
    assert missing_session.status_code == 404
    assert missing_session.json()["detail"] == "Session not found: 'nope'."
    body = {"evalId": "x", "sessionId": "s1", "userId": "alice"}
    missing_set = client.post(f"{APP}/eval_sets/nope/add_session", json=body)
    assert missing_set.status_code == 404
    assert missing_set.json()["detail"] == "Eval set 'nope' not found for app 'forecast'."
    assert client.get(f"{APP}/eval_sets/trips/evals").json() == ["paris_oslo"]


def test_get_put_and_delete_an_eval_case(client: httpx.Client) -> None:
    case_with_set(client)
    path = f"{APP}/eval_sets/trips/evals/paris_oslo"
    case = client.get(path).json()

    case["conversation"] = case["conversation"][:1]
    updated = client.put(path, json=case)
    assert updated.status_code == 200
    assert len(client.get(path).json()["conversation"]) == 1
    without_id = {k: v for k, v in case.items() if k != "evalId"}
    assert client.put(path, json=without_id).status_code == 200  # the path names it

    other_id = client.put(path, json={**case, "evalId": "other"})
    assert other_id.status_code == 400
    assert "not the one of the path" in other_id.json()["detail"]
    malformed = client.put(path, json={**case, "conversation": "none"})
    assert malformed.status_code == 422 and "conversation" in malformed.json()["message"]
    missing = client.put(f"{APP}/eval_sets/trips/evals/nope", json=case)
    assert missing.status_code == 404
    assert missing.json()["detail"] == "Eval case 'nope' not found in eval set 'trips'."
    assert client.get(f"{APP}/eval_sets/trips/evals/nope").status_code == 404

    assert client.delete(path).status_code == 200
    assert client.get(path).status_code == 404
    assert client.delete(path).status_code == 404
    assert client.get(f"{APP}/eval_sets/trips/evals").json() == []
    assert client.get(f"{APP}/eval_sets/nope/evals").status_code == 404


def test_run_eval_passes_a_faithful_replay_and_fails_edited_expectations(
    client: httpx.Client, agents_dir: Path
) -> None:
    case_with_set(client)
    sessions_before = client.get(f"{APP}/users/alice/sessions").json()

    default = run_eval(client, evalMetrics=[])
    assert default.status_code == 200, default.text
    [result] = default.json()
    assert {k: result[k] for k in ("evalSetFile", "evalSetId", "evalId", "finalEvalStatus")} == {
        "evalSetFile": "trips",
        "evalSetId": "trips",
        "evalId": "paris_oslo",
        "finalEvalStatus": PASSED,
    }
    assert scores(result) == {
        "tool_trajectory_avg_score": (1.0, PASSED),
        "response_match_score": (1.0, PASSED),
    }
    assert result["userId"] == "alice" and result["sessionId"]
    first = result["evalMetricResultPerInvocation"][0]
    assert first["actualInvocation"]["finalResponse"]["parts"][0]["text"] == (
        "Tomorrow it will be sunny in Paris."
    )
    # The replay ran on a session of its own, not on the server's.
    assert client.get(f"{APP}/users/alice/sessions").json() == sessions_before

    metrics = [
        {"metricName": "tool_trajectory_avg_score", "threshold": 1.0},
        {"metric_name": "response_match_score", "threshold": 0.5},
    ]
    explicit = run_eval(client, evalMetrics=metrics, evalIds=["paris_oslo"])
    assert explicit.status_code == 200
    [result] = explicit.json()
    assert result["finalEvalStatus"] == PASSED
    assert [m["threshold"] for m in result["overallEvalMetricResults"]] == [1.0, 0.5]

    path = f"{APP}/eval_sets/trips/evals/paris_oslo"
    case = client.get(path).json()
    case["conversation"][1]["intermediateData"]["toolUses"][0]["args"] = {"city": "Lima"}
    assert client.put(path, json=case).status_code == 200
    edited = run_eval(client, evalMetrics=[])
    [result] = edited.json()
    assert result["finalEvalStatus"] == FAILED
    assert scores(result) == {
        "tool_trajectory_avg_score": (0.5, FAILED),  # one of two invocations matches
        "response_match_score": (1.0, PASSED),
    }
    second = result["evalMetricResultPerInvocation"][1]["evalMetricResults"][0]
    assert second["evalStatus"] == FAILED and "Lima" in second["details"]["reason"]

    ids = client.get(f"{APP}/eval_results").json()
    assert len(ids) == 3 and all(i.startswith("forecast_trips_") for i in ids)
    history = agents_dir / "forecast" / ".adk" / "eval_history"
    assert sorted(p.name for p in history.iterdir()) == sorted(
        f"{i}.evalset_result.json" for i in ids
    )
    last = client.get(f"{APP}/eval_results/{ids[-1]}")
    assert last.status_code == 200
    stored = last.json()
    assert stored["evalSetResultId"] == ids[-1] and stored["evalSetId"] == "trips"
    [case_result] = stored["evalCaseResults"]
    assert case_result["evalId"] == "paris_oslo" and case_result["finalEvalStatus"] == FAILED
    assert client.get(f"{APP}/eval_results/nope").status_code == 404


def test_run_eval_errors_name_the_problem(client: httpx.Client) -> None:
    case_with_set(client)

    unknown = run_eval(client, evalMetrics=[{"metricName": "nope", "threshold": 1}])
    assert unknown.status_code == 400
    assert unknown.json()["detail"].startswith("Unknown metric 'nope' (known: ")
    no_threshold = run_eval(client, evalMetrics=[{"metricName": "response_match_score"}])
    assert no_threshold.status_code == 400
    assert no_threshold.json()["detail"] == "Metric 'response_match_score' has no threshold."
    unknown_case = run_eval(client, evalIds=["nope"])
    assert unknown_case.status_code == 400 and "no eval case nope" in unknown_case.json()["detail"]
    missing_set = client.post(f"{APP}/eval_sets/nope/run_eval", json={"evalMetrics": []})
    assert missing_set.status_code == 404
    assert missing_set.json()["detail"] == "Eval set 'nope' not found for app 'forecast'."
    simulated = run_eval(client, userSimulatorConfig={"type": "llm_audio"})
    assert simulated.status_code == 400
    assert simulated.json()["detail"] == (
        "userSimulatorConfig: user simulator type 'llm_audio' is not available in pyadk "
        "(known: llm_backed)"
    )
    live = run_eval(client, liveModelConfig={"timeoutSeconds": 5})
    assert live.status_code == 400
    assert live.json()["detail"] == "liveModelConfig is not supported by pyadk."
    assert client.get(f"{APP}/eval_results").json() == []  # nothing ran


class RouteModel(BaseLlm):
    """Plays the simulated user (``route-user``: names Oslo, then ends once the agent
    answered about it) and the judge (``route-judge``: every message is valid)."""

    @classmethod
    def supported_models(cls) -> list[str]:
        return ["route-user", "route-judge"]

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        prompt = llm_request.contents[-1].parts[0].text or ""
        if self.model == "route-judge":
            text = '{"is_valid": true}'
        else:
            text = "</finished>" if "in Oslo" in prompt else "And in Oslo?"
        yield LlmResponse(content=types.ModelContent(text))


@pytest.fixture
def route_models() -> Iterator[None]:
    LLMRegistry.register(RouteModel)
    yield
    for pattern in RouteModel.supported_models():
        registry_module._registry.pop(pattern, None)
    registry_module._resolve_cached.cache_clear()


def test_run_eval_simulates_scenario_cases_with_the_user_simulator_config(
    client: httpx.Client, route_models: None
) -> None:
    case_with_set(client)
    scenario = {"startingPrompt": "Weather in Paris?", "conversationPlan": "Ask about Oslo."}
    put = client.put(
        f"{APP}/eval_sets/trips/evals/paris_oslo", json={"conversationScenario": scenario}
    )
    assert put.status_code == 200 and "conversation" not in put.json()
    per_turn = {
        "metricName": "per_turn_user_simulator_quality_v1",
        "threshold": 1.0,
        "criterion": {"threshold": 1.0, "judgeModelOptions": {"judgeModel": "route-judge"}},
    }
    simulator = {"type": "llm_backed", "model": "route-user"}

    reference = run_eval(client, userSimulatorConfig=simulator)  # the default criteria
    assert reference.status_code == 400
    assert (
        "'tool_trajectory_avg_score' compares with an expected conversation"
        in (reference.json()["detail"])
    )
    unserved = run_eval(
        client, evalMetrics=[per_turn], userSimulatorConfig={"model": "nobody-serves-this"}
    )
    assert unserved.status_code == 400
    assert "User simulator model 'nobody-serves-this' cannot be used" in unserved.json()["detail"]
    assert client.get(f"{APP}/eval_results").json() == []  # nothing ran

    ran = run_eval(client, evalMetrics=[per_turn], userSimulatorConfig=simulator)
    assert ran.status_code == 200, ran.text
    [result] = ran.json()
    assert result["finalEvalStatus"] == PASSED
    turns = result["evalMetricResultPerInvocation"]
    said = [t["actualInvocation"]["userContent"]["parts"][0]["text"] for t in turns]
    assert said == ["Weather in Paris?", "And in Oslo?"]
    answers = [t["actualInvocation"]["finalResponse"]["parts"][0]["text"] for t in turns]
    assert answers == [
        "Tomorrow it will be sunny in Paris.",
        "Tomorrow it will be snowing in Oslo.",
    ]
    assert [t["evalMetricResults"][0]["score"] for t in turns] == [1.0, 1.0]


BUILT_IN_METRICS = (
    "final_response_match_v2",
    "hallucinations_v1",
    "per_turn_user_simulator_quality_v1",
    "response_match_score",
    "rubric_based_final_response_quality_v1",
    "rubric_based_tool_use_quality_v1",
    "tool_trajectory_avg_score",
)


def test_google_adk_2_paths(client: httpx.Client) -> None:
    dev = "/dev/apps/forecast"
    new_set = {
        "eval_set": {
            "eval_set_id": "trips",
            "model_execution_mode": "live",
            "tool_execution_mode": "live",
            "eval_cases": [],
        }
    }
    assert client.post(f"{dev}/eval-sets", json=new_set).json()["evalSetId"] == "trips"
    assert client.get(f"{dev}/eval-sets").json() == {"evalSetIds": ["trips"]}
    assert client.get(f"{dev}/eval_sets").json() == ["trips"]
    record_session(client)
    body = {"evalId": "paris_oslo", "sessionId": "s1", "userId": "alice"}
    assert client.post(f"{dev}/eval-sets/trips/add-session", json=body).status_code == 200
    case = client.get(f"{dev}/eval-sets/trips/eval-cases/paris_oslo").json()
    assert tool_calls(case) == [
        ("get_forecast", {"city": "Paris"}),
        ("get_forecast", {"city": "Oslo"}),
    ]

    ran = client.post(
        f"{dev}/eval-sets/trips/run",
        json={
            "eval_case_ids": ["paris_oslo"],
            "eval_metrics": [{"metricName": "tool_trajectory_avg_score", "threshold": 1}],
        },
    )
    assert ran.status_code == 200, ran.text
    [result] = ran.json()["runEvalResults"]
    assert result["finalEvalStatus"] == PASSED
    result_id = ran.json()["evalSetResultId"]
    assert client.get(f"{dev}/eval-results").json() == {"evalResultIds": [result_id]}
    assert client.get(f"{dev}/eval-results/{result_id}").json()["evalSetResultId"] == result_id
    assert client.get(f"{APP}/eval_results").json() == [result_id]  # one store, both paths

    info = client.get(f"{dev}/metrics-info").json()["metricsInfo"]
    # Metrics registered in this process (register_evaluator) are listed too.
    prebuilt = [m for m in info if m["metricName"] in BUILT_IN_METRICS]
    assert [m["metricName"] for m in prebuilt] == sorted(BUILT_IN_METRICS)
    assert all(
        m["description"] and m["metricValueInfo"]["interval"]["maxValue"] == 1 for m in prebuilt
    )

    assert client.delete(f"{dev}/eval-sets/trips/eval-cases/paris_oslo").status_code == 200
    assert client.delete(f"{dev}/eval-sets/trips").status_code == 200
    assert client.get(f"{dev}/eval-sets").json() == {"evalSetIds": []}
    assert client.delete(f"{dev}/eval-sets/trips").status_code == 404


def test_eval_routes_are_protected_like_the_session_routes(
    serve: Callable[[Any], LiveServer], agents_dir: Path
) -> None:
    tokens = {"alice-token": "alice", "admin-token": "*"}
    server = serve(create_app(agents_dir, auth_token=tokens))

    anonymous = server.client()
    assert anonymous.get(f"{APP}/eval_sets").status_code == 401
    assert anonymous.post(f"{APP}/eval_sets/trips").status_code == 401
    assert anonymous.get("/dev/apps/forecast/eval-sets").status_code == 401

    alice = server.client(Authorization="Bearer alice-token")
    refused = alice.post(f"{APP}/eval_sets/trips")
    assert refused.status_code == 403
    assert refused.json()["detail"] == (
        "This token belongs to user 'alice': the eval routes need a token for any user."
    )
    assert alice.get(f"{APP}/eval_results").status_code == 403
    assert not (agents_dir / "forecast" / "trips.evalset.json").exists()

    admin = server.client(Authorization="Bearer admin-token")
    assert admin.post(f"{APP}/eval_sets/trips").status_code == 200
    assert admin.get(f"{APP}/eval_sets").json() == ["trips"]


def test_a_server_without_agents_directory_answers_501(
    serve: Callable[[Any], LiveServer],
) -> None:
    agent = LlmAgent(name="given", model=ScriptedModel([]))
    client = serve(create_app(agents={"given": agent})).client()

    response = client.get("/apps/given/eval_sets")
    assert response.status_code == 501
    assert "agents directory" in response.json()["detail"]


def test_openapi_names_each_eval_route_once(agents_dir: Path) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)  # FastAPI warns on duplicate ids
        spec = create_app(agents_dir).openapi()

    paths = spec["paths"]
    assert "post" in paths["/apps/{app_name}/eval_sets/{eval_set_id}/run_eval"]
    assert "post" in paths["/dev/apps/{app_name}/eval-sets/{eval_set_id}/run"]
    assert set(paths["/dev/apps/{app_name}/eval-sets/{eval_set_id}/eval-cases/{eval_case_id}"]) == {
        "get",
        "put",
        "delete",
    }
