"""User simulation: eval cases with a conversation scenario are played by a simulated
user (a scripted model found by name, offline) against a scripted agent, then scored by
the metrics that need no reference conversation."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from pyadk import types
from pyadk.agents import LlmAgent
from pyadk.evaluation import (
    AgentEvaluator,
    ConversationScenario,
    EvalCase,
    EvalConfig,
    EvalConfigError,
    EvalSet,
    EvalStatus,
    Invocation,
    LlmBackedUserSimulator,
    LlmBackedUserSimulatorConfig,
    PerTurnUserSimulatorQualityV1,
    Status,
    UserSimulatorProvider,
    evaluate_eval_set,
    find_config_for_test_file,
    generate_simulated_invocations,
    get_eval_metrics_from_config,
    load_eval_config,
)
from pyadk.evaluation.llm_as_judge_utils import get_text_from_content
from pyadk.evaluation.simulation.static_user_simulator import StaticUserSimulator
from pyadk.models import LlmRequest
from pyadk.runners import InMemoryRunner
from pyadk.testing import FunctionModel, function_call

from .conftest import JUDGE_NAME, USER_MODEL_NAME, JudgeScript, rubric_verdicts, section

PLAN = "Book a flight to Oslo. Once it is booked, you are done."
SCENARIO = {"startingPrompt": "I need a flight.", "conversationPlan": PLAN}
CITIES = ("Oslo", "Paris")
booked: list[str] = []


def book_flight(city: str) -> dict[str, str]:
    """Books a flight to a city."""
    booked.append(city)
    return {"status": "booked", "city": city}


def trip_reply(request: LlmRequest) -> Any:
    """Asks where to until the user names a city, then books it."""
    last = request.contents[-1].parts[0]
    if last.function_response is not None:
        return f"Booked a flight to {last.function_response.response['city']}."
    city = next((c for c in CITIES if c in (last.text or "")), None)
    if city is None:
        return "Where do you want to fly?"
    return function_call("book_flight", {"city": city})


def trip_agent() -> LlmAgent:
    booked.clear()
    return LlmAgent(name="trip", model=FunctionModel(trip_reply), tools=[book_flight])


def scenario_set(*cases: dict[str, Any]) -> EvalSet:
    return EvalSet.model_validate({"evalSetId": "trips", "evalCases": list(cases)})


def simulator_config(**settings: Any) -> LlmBackedUserSimulatorConfig:
    return LlmBackedUserSimulatorConfig(model=USER_MODEL_NAME, **settings)


def user_texts(rows: Any) -> list[str | None]:
    return [get_text_from_content(r.actual_invocation.user_content) for r in rows]


def final_texts(rows: Any) -> list[str | None]:
    return [get_text_from_content(r.actual_invocation.final_response) for r in rows]


# ---- the simulated conversation


async def test_the_simulated_user_starts_with_the_prompt_and_answers_the_agent(
    simulated_user: JudgeScript,
) -> None:
    simulated_user.replies = ["Oslo, please.", "Thanks! </finished>"]
    [result] = await evaluate_eval_set(
        trip_agent(),
        scenario_set({"evalId": "oslo", "conversationScenario": SCENARIO}),
        [],
        user_simulator_config=simulator_config(),
    )
    rows = result.eval_metric_result_per_invocation
    assert user_texts(rows) == ["I need a flight.", "Oslo, please."]
    assert final_texts(rows) == ["Where do you want to fly?", "Booked a flight to Oslo."]
    assert booked == ["Oslo"] and result.error is None
    assert [r.expected_invocation for r in rows] == [None, None]
    # The starting prompt is sent as it is; the model writes every later message from
    # the plan and the conversation so far (its own messages authored by "user").
    first, second = simulated_user.prompts
    assert section(first, "conversation_plan") == PLAN
    assert section(first, "conversation_history") == (
        "user: I need a flight.\n\ntrip: Where do you want to fly?"
    )
    assert "</finished>" in first  # the stop signal it is told to write
    assert section(second, "conversation_history").endswith(
        "user: Oslo, please.\n\ntrip: Booked a flight to Oslo."
    )
    assert "book_flight" not in second  # tool calls are left out by default


async def test_the_stop_signal_and_the_turn_limit_end_the_conversation(
    simulated_user: JudgeScript,
) -> None:
    runner = InMemoryRunner(trip_agent(), app_name="trip")
    case = EvalCase.model_validate({"evalId": "c", "conversationScenario": SCENARIO})

    async def play(config: LlmBackedUserSimulatorConfig) -> tuple[list[Any], Status]:
        session = await runner.session_service.create_session(app_name="trip", user_id="u")
        simulator = UserSimulatorProvider(config).provide(case)
        return await generate_simulated_invocations(
            runner, simulator, user_id="u", session_id=session.id
        )

    simulated_user.replies = ["ALL DONE </FINISHED>"]  # anywhere, in any case
    invocations, status = await play(simulator_config())
    assert status is Status.STOP_SIGNAL_DETECTED and len(invocations) == 1

    simulated_user.reset()
    simulated_user.function = lambda prompt: "Paris? No, Oslo."  # never satisfied
    invocations, status = await play(simulator_config(max_allowed_invocations=3))
    assert status is Status.TURN_LIMIT_REACHED
    assert [get_text_from_content(i.user_content) for i in invocations] == [
        "I need a flight.",
        "Paris? No, Oslo.",
        "Paris? No, Oslo.",
    ]
    assert len(simulated_user.prompts) == 2  # the starting prompt costs no model call


async def test_tool_calls_reach_the_simulator_when_asked_and_personas_are_played(
    simulated_user: JudgeScript,
) -> None:
    simulated_user.replies = ["Oslo.", "</finished>"]
    scenario = {**SCENARIO, "userPersona": "NOVICE"}
    await evaluate_eval_set(
        trip_agent(),
        scenario_set({"evalId": "novice", "conversationScenario": scenario}),
        [],
        user_simulator_config=simulator_config(include_function_calls=True),
    )
    last = simulated_user.prompts[-1]
    assert "trip called tool 'book_flight' with {'city': 'Oslo'}" in last
    assert "tool 'book_flight' returned {'status': 'booked', 'city': 'Oslo'}" in last
    persona = section(last, "persona")
    assert persona.startswith("Unsure how to get what they need")
    assert "## Waits to be asked" in persona


async def test_custom_instructions_replace_pyadks_and_are_filled_in(
    simulated_user: JudgeScript,
) -> None:
    simulated_user.replies = ["</finished>"]
    instructions = (
        "PLAN={{ conversation_plan }}|SO FAR={{conversation_history}}|END={{ stop_signal }}"
    )
    await evaluate_eval_set(
        trip_agent(),
        scenario_set({"evalId": "c", "conversationScenario": SCENARIO}),
        [],
        user_simulator_config=simulator_config(custom_instructions=instructions),
    )
    assert simulated_user.prompts == [
        f"PLAN={PLAN}|SO FAR=user: I need a flight.\n\ntrip: Where do you want to fly?"
        "|END=</finished>"
    ]


# ---- metrics on a simulated conversation


def simulation_judge(prompt: str) -> str:
    """Per-turn checks: a message is valid when it names Oslo, and ending is valid once
    a flight was booked. Rubric "The answer mentions X.": yes when the answer has X."""
    if "<generated_user_response>" in prompt:
        said = section(prompt, "generated_user_response")
        history = section(prompt, "conversation_history")
        valid = "Booked" in history if said == "</finished>" else "Oslo" in said
        return json.dumps({"reasoning": f"checked {said!r}", "is_valid": valid})
    return rubric_verdicts(prompt)


JUDGED = {
    "criteria": {
        "per_turn_user_simulator_quality_v1": {
            "threshold": 1.0,
            "judgeModelOptions": {"judgeModel": JUDGE_NAME, "numSamples": 3},
        },
        "rubric_based_final_response_quality_v1": {
            "threshold": 0.5,
            "judgeModelOptions": {"judgeModel": JUDGE_NAME, "numSamples": 1},
            "rubrics": [
                {
                    "rubricId": "booked",
                    "rubricContent": {"textProperty": "The answer mentions Booked."},
                }
            ],
        },
    },
    "userSimulatorConfig": {"model": USER_MODEL_NAME},
}


async def test_judged_metrics_score_the_simulated_conversation(
    simulated_user: JudgeScript, judge: JudgeScript
) -> None:
    simulated_user.replies = ["Oslo, please.", "</finished>"]
    judge.function = simulation_judge
    config = EvalConfig.model_validate(JUDGED)
    [result] = await evaluate_eval_set(
        trip_agent(),
        scenario_set({"evalId": "oslo", "conversationScenario": SCENARIO}),
        get_eval_metrics_from_config(config),
        user_simulator_config=config.user_simulator_config,
    )
    assert result.final_eval_status is EvalStatus.PASSED
    per_turn, rubric = result.overall_eval_metric_results
    assert (per_turn.score, per_turn.eval_status) == (1.0, EvalStatus.PASSED)
    assert (rubric.score, rubric.eval_status) == (0.5, EvalStatus.PASSED)  # 1 of 2 turns
    first, second = result.eval_metric_result_per_invocation
    assert [m.score for m in first.eval_metric_results] == [1.0, 0.0]
    assert [m.score for m in second.eval_metric_results] == [1.0, 1.0]
    # The first message is compared with the starting prompt (no judge); the second is
    # judged 3 times, then whether ending after it was right, 3 times.
    per_turn_prompts = [p for p in judge.prompts if "<generated_user_response>" in p]
    assert len(per_turn_prompts) == 6
    assert [section(p, "generated_user_response") for p in per_turn_prompts[::3]] == [
        "Oslo, please.",
        "</finished>",
    ]
    assert section(per_turn_prompts[0], "conversation_plan") == PLAN


async def test_an_early_end_fails_the_last_turn(
    simulated_user: JudgeScript, judge: JudgeScript
) -> None:
    simulated_user.replies = ["Oslo, please.", "</finished>"]
    judge.function = simulation_judge
    config = EvalConfig.model_validate(JUDGED)
    metrics = get_eval_metrics_from_config(config)[:1]
    # The user names Oslo, the agent cannot book, the user ends: too early for the
    # judge, so the last turn fails (the ending check replaces its verdict).
    agent = LlmAgent(name="trip", model=FunctionModel(lambda request: "I cannot book flights."))
    [result] = await evaluate_eval_set(
        agent,
        scenario_set({"evalId": "c", "conversationScenario": SCENARIO}),
        metrics,
        user_simulator_config=config.user_simulator_config,
    )
    [per_turn] = result.overall_eval_metric_results
    assert (per_turn.score, per_turn.eval_status) == (0.5, EvalStatus.FAILED)
    first, second = (r.eval_metric_results[0] for r in result.eval_metric_result_per_invocation)
    assert first.score == 1.0
    assert second.score == 0.0
    assert second.details["stop_signal"] == "the conversation should not have ended here"
    assert second.details["votes"] == {"valid": 0, "invalid": 3, "unread": 0}


async def test_a_first_message_that_is_not_the_starting_prompt_fails(
    judge: JudgeScript,
) -> None:
    judge.function = simulation_judge
    metric = get_eval_metrics_from_config(EvalConfig.model_validate(JUDGED))[0]
    evaluator = PerTurnUserSimulatorQualityV1(metric)
    invocation = Invocation(
        user_content=types.UserContent("Hello Oslo"),
        final_response=types.ModelContent("Booked a flight to Oslo."),
    )
    outcome = await evaluator.evaluate_invocations(
        [invocation], conversation_scenario=ConversationScenario.model_validate(SCENARIO)
    )
    [first] = outcome.per_invocation_results
    assert (first.score, first.details) == (
        0.0,
        {"reason": "the first message is not the starting prompt"},
    )
    assert (outcome.overall_score, outcome.overall_eval_status) == (0.0, EvalStatus.FAILED)
    with pytest.raises(ValueError, match="against its conversation scenario"):
        await evaluator.evaluate_invocations([invocation], [invocation])


async def test_reference_metrics_are_not_evaluated_on_simulated_cases_of_a_mixed_set(
    simulated_user: JudgeScript,
) -> None:
    simulated_user.replies = ["Oslo.", "</finished>"]
    static = {
        "evalId": "static",
        "conversation": [
            {
                "userContent": {"role": "user", "parts": [{"text": "Fly me to Paris"}]},
                "intermediateData": {
                    "toolUses": [{"name": "book_flight", "args": {"city": "Paris"}}]
                },
            }
        ],
    }
    metrics = get_eval_metrics_from_config(EvalConfig(criteria={"tool_trajectory_avg_score": 1.0}))
    scored, simulated = await evaluate_eval_set(
        trip_agent(),
        scenario_set(static, {"evalId": "sim", "conversationScenario": SCENARIO}),
        metrics,
        user_simulator_config=simulator_config(),
    )
    assert scored.final_eval_status is EvalStatus.PASSED
    assert simulated.final_eval_status is EvalStatus.NOT_EVALUATED
    [trajectory] = simulated.overall_eval_metric_results
    assert trajectory.eval_status is EvalStatus.NOT_EVALUATED and trajectory.score is None
    assert trajectory.details == {
        "reason": "tool_trajectory_avg_score compares with an expected conversation; "
        "this case is simulated"
    }
    assert len(simulated.eval_metric_result_per_invocation) == 2


# ---- configuration


def test_test_config_json_carries_the_simulator_config(tmp_path: Path) -> None:
    (tmp_path / "test_config.json").write_text(
        json.dumps(
            {
                "criteria": {"hallucinations_v1": 0.5},
                "user_simulator_config": {
                    "model": USER_MODEL_NAME,
                    "max_allowed_invocations": 4,
                    "model_configuration": {"temperature": 0.2},
                },
            }
        )
    )
    config = find_config_for_test_file(tmp_path / "trips.evalset.json")
    simulator = config.user_simulator_config
    assert isinstance(simulator, LlmBackedUserSimulatorConfig)
    assert (simulator.type, simulator.model, simulator.max_allowed_invocations) == (
        "llm_backed",
        USER_MODEL_NAME,
        4,
    )
    assert simulator.model_configuration.temperature == 0.2
    camel = EvalConfig.model_validate(
        {"userSimulatorConfig": {"type": "llm_backed", "includeFunctionCalls": True}}
    )
    assert isinstance(camel.user_simulator_config, LlmBackedUserSimulatorConfig)
    assert camel.user_simulator_config.include_function_calls is True
    assert camel.user_simulator_config.model == "gemini-2.5-flash"  # google-adk's default
    dumped = camel.model_dump(by_alias=True, exclude_none=True)["userSimulatorConfig"]
    assert (dumped["type"], dumped["maxAllowedInvocations"]) == ("llm_backed", 20)
    assert EvalConfig().user_simulator_config is None
    # Written back and read again, criteria keep their options (judge, rubrics).
    judged = EvalConfig.model_validate(JUDGED)
    again = EvalConfig.model_validate_json(judged.model_dump_json(by_alias=True))
    assert again == judged
    rubric = again.criteria["rubric_based_final_response_quality_v1"]
    assert rubric.judge_model_options.judge_model == JUDGE_NAME  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("simulator", "fragment"),
    [
        ({"type": "llm_audio"}, "user simulator type 'llm_audio' is not available in pyadk"),
        ({"customInstructions": "Say {{ stop_signal }}"}, "{{ conversation_plan }}"),
        (
            {
                "customInstructions": "{% if x %}{{ stop_signal }}{{ conversation_plan }}"
                "{{ conversation_history }}{% endif %}"
            },
            "not {% ... %} blocks",
        ),
    ],
)
def test_a_bad_simulator_config_is_refused_when_read(
    tmp_path: Path, simulator: dict[str, Any], fragment: str
) -> None:
    path = tmp_path / "test_config.json"
    path.write_text(json.dumps({"criteria": {}, "userSimulatorConfig": simulator}))
    with pytest.raises(EvalConfigError) as error:
        load_eval_config(path)
    assert fragment in str(error.value)


# ---- errors


def test_a_case_with_both_a_conversation_and_a_scenario_is_refused() -> None:
    turn = {"userContent": {"role": "user", "parts": [{"text": "hi"}]}}
    with pytest.raises(ValidationError) as error:
        EvalCase.model_validate(
            {"evalId": "both", "conversation": [turn], "conversationScenario": SCENARIO}
        )
    assert "has both a conversation and a conversation_scenario" in str(error.value)
    with pytest.raises(
        ValidationError, match=r"No user persona 'PIRATE'.*EVALUATOR, EXPERT, NOVICE"
    ):
        EvalCase.model_validate(
            {"evalId": "p", "conversationScenario": {**SCENARIO, "userPersona": "PIRATE"}}
        )
    # Written back, a scenario case has no conversation key (google-adk reads it as null).
    case = EvalCase.model_validate(
        {"evalId": "s", "conversation": None, "conversationScenario": SCENARIO}
    )
    data = case.model_dump(by_alias=True, exclude_none=True)
    assert "conversation" not in data and data["conversationScenario"] == SCENARIO
    assert isinstance(UserSimulatorProvider().provide(case), LlmBackedUserSimulator)


async def test_a_simulator_model_no_registry_serves_stops_the_run_before_the_agent() -> None:
    calls: list[LlmRequest] = []
    agent = LlmAgent(name="trip", model=FunctionModel(lambda r: calls.append(r) or "hi"))
    with pytest.raises(
        ValueError, match="User simulator model 'nobody-serves-this' cannot be used"
    ):
        await evaluate_eval_set(
            agent,
            scenario_set({"evalId": "c", "conversationScenario": SCENARIO}),
            [],
            user_simulator_config=LlmBackedUserSimulatorConfig(model="nobody-serves-this"),
        )
    assert calls == []


async def test_metrics_no_case_can_feed_stop_the_run_before_the_agent(
    simulated_user: JudgeScript, judge: JudgeScript
) -> None:
    metrics = get_eval_metrics_from_config(EvalConfig())  # trajectory + response match
    with pytest.raises(ValueError, match="'tool_trajectory_avg_score' compares with an expected"):
        await evaluate_eval_set(
            trip_agent(),
            scenario_set({"evalId": "c", "conversationScenario": SCENARIO}),
            metrics,
            user_simulator_config=simulator_config(),
        )
    per_turn = get_eval_metrics_from_config(EvalConfig.model_validate(JUDGED))[:1]
    turn = {"userContent": {"role": "user", "parts": [{"text": "hi"}]}}
    with pytest.raises(ValueError, match="no eval case of 'trips' has a conversation scenario"):
        await evaluate_eval_set(
            trip_agent(), scenario_set({"evalId": "s", "conversation": [turn]}), per_turn
        )
    assert simulated_user.prompts == [] and judge.prompts == [] and booked == []


async def test_a_silent_simulator_fails_its_case_and_the_others_run(
    simulated_user: JudgeScript,
) -> None:
    simulated_user.replies = ["", "Oslo.", "</finished>"]
    silent, fine = await evaluate_eval_set(
        trip_agent(),
        scenario_set(
            {"evalId": "silent", "conversationScenario": SCENARIO},
            {"evalId": "fine", "conversationScenario": SCENARIO},
        ),
        [],
        user_simulator_config=simulator_config(),
    )
    assert silent.final_eval_status is EvalStatus.FAILED
    assert silent.error == (
        "RuntimeError: User simulator 'scripted-user': no user message: the model was silent"
    )
    assert fine.error is None and len(fine.eval_metric_result_per_invocation) == 2


async def test_a_fixed_conversation_replays_through_the_static_simulator() -> None:
    turns = [{"userContent": {"role": "user", "parts": [{"text": t}]}} for t in ("a", "b")]
    case = EvalCase.model_validate({"evalId": "s", "conversation": turns})
    simulator = UserSimulatorProvider().provide(case)
    assert isinstance(simulator, StaticUserSimulator)
    said = [await simulator.get_next_user_message([]) for _ in range(3)]
    assert [m.status for m in said] == [Status.SUCCESS, Status.SUCCESS, Status.STOP_SIGNAL_DETECTED]
    assert [get_text_from_content(m.user_message) for m in said[:2]] == ["a", "b"]


# ---- end to end


async def test_agent_evaluator_simulates_and_scores_a_folder(
    tmp_path: Path, simulated_user: JudgeScript, judge: JudgeScript
) -> None:
    judge.function = simulation_judge
    (tmp_path / "trips.evalset.json").write_text(
        json.dumps(
            {
                "evalSetId": "trips",
                "evalCases": [{"evalId": "oslo", "conversationScenario": SCENARIO}],
            }
        )
    )
    (tmp_path / "test_config.json").write_text(json.dumps(JUDGED))
    simulated_user.replies = ["Oslo, please.", "</finished>"] * 2
    await AgentEvaluator.evaluate(trip_agent(), tmp_path, print_detailed_results=False)
    assert booked == ["Oslo", "Oslo"]  # two runs, each a new simulated conversation

    simulated_user.replies = ["Paris then.", "</finished>"] * 2  # breaks the plan
    with pytest.raises(AssertionError, match="trips/oslo: per_turn_user_simulator_quality_v1"):
        await AgentEvaluator.evaluate(trip_agent(), tmp_path, print_detailed_results=False)


AGENT_MODULE = """
    from pyadk.agents import LlmAgent
    from pyadk.models import BaseLlm, LLMRegistry, LlmResponse
    from pyadk import types
    from pyadk.testing import FunctionModel


    class CliUser(BaseLlm):
        @classmethod
        def supported_models(cls):
            return ["cli-user"]

        async def generate_content_async(self, llm_request, stream=False):
            prompt = llm_request.contents[-1].parts[0].text
            text = "</finished>" if "Booked" in prompt else "Oslo, please."
            yield LlmResponse(content=types.ModelContent(text))


    class CliJudge(BaseLlm):
        @classmethod
        def supported_models(cls):
            return ["cli-judge"]

        async def generate_content_async(self, llm_request, stream=False):
            yield LlmResponse(content=types.ModelContent('{"is_valid": true}'))


    LLMRegistry.register(CliUser)
    LLMRegistry.register(CliJudge)


    def reply(request):
        text = request.contents[-1].parts[0].text or ""
        return "Booked a flight to Oslo." if "Oslo" in text else "Where to?"


    root_agent = LlmAgent(name="trip", model=FunctionModel(reply))
"""


def test_pyadk_eval_simulates_with_the_config_s_simulator(tmp_path: Path) -> None:
    agent_dir = tmp_path / "trip"
    agent_dir.mkdir()
    (agent_dir / "__init__.py").write_text("from . import agent\n")
    (agent_dir / "agent.py").write_text(textwrap.dedent(AGENT_MODULE))
    (tmp_path / "trips.evalset.json").write_text(
        json.dumps(
            {
                "evalSetId": "trips",
                "evalCases": [{"evalId": "oslo", "conversationScenario": SCENARIO}],
            }
        )
    )
    config = {
        "criteria": {
            "per_turn_user_simulator_quality_v1": {
                "threshold": 1.0,
                "judgeModelOptions": {"judgeModel": "cli-judge", "numSamples": 1},
            }
        },
        "userSimulatorConfig": {"model": "cli-user"},
    }
    (tmp_path / "sim.json").write_text(json.dumps(config))
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYADK_")}
    env.update({"NO_COLOR": "1", "TERM": "dumb", "COLUMNS": "200", "PYADK_DEFAULT_MODEL": "none"})
    command = [sys.executable, "-m", "pyadk.cli", "eval", "trip", "trips.evalset.json"]
    result = subprocess.run(
        [*command, "--config_file_path", "sim.json", "--print_detailed_results"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Oslo, please." in result.stdout and "Booked a flight to Oslo." in result.stdout
    [saved] = (tmp_path / "trip" / ".adk" / "eval_history").glob("*.evalset_result.json")
    [case] = json.loads(saved.read_text())["evalCaseResults"]
    assert case["finalEvalStatus"] == EvalStatus.PASSED.value
    assert len(case["evalMetricResultPerInvocation"]) == 2

    config["userSimulatorConfig"] = {"model": "nobody-serves-this"}
    (tmp_path / "sim.json").write_text(json.dumps(config))
    refused = subprocess.run(
        [*command, "--config_file_path", "sim.json", "--no-history"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert refused.returncode != 0
    assert "User simulator model 'nobody-serves-this' cannot be used" in refused.stderr


async def test_a_simulated_case_starts_from_its_session_input(simulated_user: JudgeScript) -> None:
    simulated_user.replies = ["</finished>"]

    def echo_instruction(request: LlmRequest) -> str:
        return str(request.config.system_instruction)

    agent = LlmAgent(name="trip", model=FunctionModel(echo_instruction), instruction="Unit: {unit}")
    session_input = {"appName": "trip", "userId": "ann", "state": {"unit": "C"}}
    [result] = await evaluate_eval_set(
        agent,
        scenario_set(
            {"evalId": "c", "conversationScenario": SCENARIO, "sessionInput": session_input}
        ),
        [],
        user_simulator_config=simulator_config(),
    )
    assert result.user_id == "ann"
    [row] = result.eval_metric_result_per_invocation
    assert "Unit: C" in (get_text_from_content(row.actual_invocation.final_response) or "")
