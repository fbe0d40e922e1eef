"""Judged metrics end to end: an agent run by AgentEvaluator and by `pyadk eval`, scored
by a judge model named in test_config.json (offline: a registered scripted judge)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from pyadk.agents import LlmAgent
from pyadk.evaluation import (
    AgentEvaluator,
    EvalStatus,
    LocalEvalSetResultsManager,
    evaluate_eval_set,
    find_config_for_test_file,
    get_eval_metrics_from_config,
    load_eval_set,
)
from pyadk.models import LlmRequest
from pyadk.testing import FunctionModel, function_call

from .conftest import JUDGE_NAME, JudgeScript, rubric_verdicts, section

SKIES = {"Paris": "sunny", "Oslo": "snowing"}


def weather_reply(request: LlmRequest) -> Any:
    last = request.contents[-1].parts[0]
    if last.function_response is not None:
        result = last.function_response.response
        return f"It is {result['sky']} in {result['city']}."
    return function_call("get_weather", {"city": (last.text or "").rstrip("?").split()[-1]})


def get_weather(city: str) -> dict[str, str]:
    """The sky over a city."""
    return {"city": city, "sky": SKIES.get(city, "grey")}


def keyword_judge(prompt: str) -> str:
    """Valid when the answer has the reference's first word; a rubric "The answer
    mentions X." holds when the answer has X."""
    if "<reference_response>" in prompt:
        key = section(prompt, "reference_response").split()[0].lower()
        valid = key in section(prompt, "agent_response").lower()
        label = "valid" if valid else "invalid"
        return json.dumps({"reasoning": f"looked for {key}", "is_the_agent_response_valid": label})
    return rubric_verdicts(prompt)


def turn(question: str, reference: str) -> dict[str, Any]:
    return {
        "userContent": {"role": "user", "parts": [{"text": question}]},
        "finalResponse": {"role": "model", "parts": [{"text": reference}]},
    }


def mentions(rubric_id: str, word: str, kind: str | None = None) -> dict[str, Any]:
    rubric: dict[str, Any] = {
        "rubricId": rubric_id,
        "rubricContent": {"textProperty": f"The answer mentions {word}."},
    }
    return {**rubric, "type": kind} if kind else rubric


CONFIG = {
    "criteria": {
        "final_response_match_v2": {
            "threshold": 0.8,
            "judgeModelOptions": {"judgeModel": JUDGE_NAME, "numSamples": 3},
        },
        "rubric_based_final_response_quality_v1": {
            "threshold": 1.0,
            "judgeModelOptions": {"judgeModel": JUDGE_NAME, "numSamples": 1},
            "rubrics": [mentions("city", "the city")],
        },
    }
}


def write_eval_folder(folder: Path, oslo_reference: str) -> Path:
    folder.mkdir(exist_ok=True)
    eval_file = folder / "weather.evalset.json"
    city_rubric = "The answer mentions {}."
    eval_set = {
        "evalSetId": "weather_set",
        "evalCases": [
            {
                "evalId": "paris",
                "rubrics": [mentions("sky", "sunny", "FINAL_RESPONSE_QUALITY")],
                "conversation": [turn("Weather in Paris?", "Sunny in Paris.")],
            },
            {
                "evalId": "oslo",
                "conversation": [
                    {
                        **turn("Weather in Oslo?", oslo_reference),
                        "rubrics": [mentions("sky", "snowing", "FINAL_RESPONSE_QUALITY")],
                    }
                ],
            },
        ],
    }
    eval_file.write_text(json.dumps(eval_set))
    config = json.loads(json.dumps(CONFIG))
    criterion = config["criteria"]["rubric_based_final_response_quality_v1"]
    criterion["rubrics"][0]["rubricContent"]["textProperty"] = city_rubric.format("in")
    (folder / "test_config.json").write_text(json.dumps(config))
    return eval_file


async def test_agent_evaluator_scores_with_the_configured_judge(
    tmp_path: Path, judge: JudgeScript
) -> None:
    judge.function = keyword_judge
    agent = LlmAgent(
        name="weather",
        model=FunctionModel(weather_reply),
        instruction="You tell the weather.",
        tools=[get_weather],
    )
    folder = tmp_path / "evals"
    write_eval_folder(folder, "Snowing in Oslo.")
    await AgentEvaluator.evaluate(agent, folder, num_runs=1, print_detailed_results=False)
    # paris: 3 samples + 1 rubric request; oslo the same.
    assert len(judge.prompts) == 8
    # The rubric judge sees what the agent was told and which tools it had.
    rubric_prompt = judge.prompts[3]
    assert "You tell the weather." in section(rubric_prompt, "developer_instructions")
    assert '"name": "get_weather"' in section(rubric_prompt, "available_tools")

    eval_file = write_eval_folder(folder, "Raining in Oslo.")
    with pytest.raises(AssertionError) as failed:
        await AgentEvaluator.evaluate(agent, folder, num_runs=1, print_detailed_results=False)
    assert str(failed.value).splitlines()[1:] == [
        "weather_set/oslo: final_response_match_v2 0.000 < 0.8 (passed 0/1 runs)"
    ]

    # What the results hold: the rubrics each invocation was judged by, their scores.
    metrics = get_eval_metrics_from_config(find_config_for_test_file(eval_file))
    paris, oslo = await evaluate_eval_set(agent, load_eval_set(eval_file), metrics)
    assert oslo.final_eval_status is EvalStatus.FAILED
    match, quality = oslo.eval_metric_result_per_invocation[0].eval_metric_results
    assert match.details == {
        "reasoning": "looked for raining",
        "votes": {"valid": 0, "invalid": 3, "unread": 0},
    }
    assert quality.score == 1.0
    assert quality.details["rubric_scores"] == [
        {"rubric_id": "city", "rationale": "in?", "score": 1.0},
        {"rubric_id": "sky", "rationale": "snowing?", "score": 1.0},
    ]
    assert [
        r.rubric_id
        for r in paris.eval_metric_result_per_invocation[0].actual_invocation.rubrics or []
    ] == ["sky"]
    overall_quality = paris.overall_eval_metric_results[1]
    assert {s["rubric_id"] for s in overall_quality.details["rubric_scores"]} == {"city", "sky"}

    [weather] = (oslo.eval_metric_result_per_invocation[0].actual_invocation.app_details or {})[
        "agent_details"
    ].values()
    assert weather["tool_declarations"][0]["function_declarations"][0]["name"] == "get_weather"

    history = LocalEvalSetResultsManager(tmp_path)
    saved = history.save_eval_set_result("weather", "weather_set", [paris, oslo])
    assert history.get_eval_set_result("weather", saved.eval_set_result_id) == saved


async def test_agent_evaluator_fails_a_metric_no_judge_answer_could_score(
    tmp_path: Path, judge: JudgeScript
) -> None:
    judge.function = lambda prompt: "I would rather not say."
    agent = LlmAgent(name="weather", model=FunctionModel(weather_reply), tools=[get_weather])
    folder = tmp_path / "evals"
    write_eval_folder(folder, "Snowing in Oslo.")
    with pytest.raises(AssertionError) as failed:
        await AgentEvaluator.evaluate(agent, folder / "weather.evalset.json", num_runs=1)
    assert (
        "weather_set/paris: final_response_match_v2 not evaluated: no score in 1 run(s) "
        "(the details of each invocation say why)"
    ) in str(failed.value)


AGENT_MODULE = """
import json

from pyadk import types
from pyadk.agents import LlmAgent
from pyadk.models import BaseLlm, LLMRegistry, LlmResponse
from pyadk.testing import FunctionModel


class EchoJudge(BaseLlm):
    \"\"\"Valid when the agent's answer contains the reference's last word.\"\"\"

    @classmethod
    def supported_models(cls):
        return ["cli-judge"]

    async def generate_content_async(self, llm_request, stream=False):
        prompt = llm_request.contents[-1].parts[0].text
        section = lambda tag: prompt.split(f"<{tag}>\\n")[1].split(f"\\n</{tag}>")[0]
        key = section("reference_response").rstrip(".").split()[-1].lower()
        label = "valid" if key in section("agent_response").lower() else "invalid"
        text = json.dumps({"reasoning": "checked " + key, "is_the_agent_response_valid": label})
        yield LlmResponse(content=types.ModelContent(text))


LLMRegistry.register(EchoJudge)


def reply(request):
    return "It is sunny in Paris."


root_agent = LlmAgent(name="weather", model=FunctionModel(reply))
"""


def test_pyadk_eval_uses_the_judge_named_in_the_config(tmp_path: Path) -> None:
    agent_dir = tmp_path / "weather"
    agent_dir.mkdir()
    (agent_dir / "__init__.py").write_text("from . import agent\n")
    (agent_dir / "agent.py").write_text(textwrap.dedent(AGENT_MODULE))
    cases = [
        {"evalId": "paris", "conversation": [turn("Weather in Paris?", "Sunny in Paris.")]},
        {"evalId": "oslo", "conversation": [turn("Weather in Oslo?", "Snowing in Oslo.")]},
    ]
    (tmp_path / "trip.evalset.json").write_text(
        json.dumps({"evalSetId": "trip", "evalCases": cases})
    )
    config = {
        "criteria": {
            "final_response_match_v2": {
                "threshold": 1.0,
                "judgeModelOptions": {"judgeModel": "cli-judge", "numSamples": 1},
            }
        }
    }
    (tmp_path / "judged.json").write_text(json.dumps(config))
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYADK_")}
    env.update({"NO_COLOR": "1", "TERM": "dumb", "COLUMNS": "200", "PYADK_DEFAULT_MODEL": "none"})
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pyadk.cli",
            "eval",
            "weather",
            "trip.evalset.json",
            "--config_file_path",
            "judged.json",
            "--print_detailed_results",
            "--no-history",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert result.returncode == 1, result.stdout + result.stderr
    out = result.stdout
    assert out.splitlines()[-1] == "1 passed, 1 failed"
    assert "trip/oslo: final_response_match_v2 0.000 < 1.0 (passed 0/1 runs)" in out
    assert "reasoning: checked oslo" in out

    config["criteria"] = {"safety_v1": 0.9}
    (tmp_path / "judged.json").write_text(json.dumps(config))
    refused = subprocess.run(
        [
            sys.executable,
            "-m",
            "pyadk.cli",
            "eval",
            "weather",
            "trip.evalset.json",
            "--config_file_path",
            "judged.json",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert refused.returncode != 0
    assert "Metric 'safety_v1' is not available offline" in refused.stdout + refused.stderr
