"""The model-judged metrics (final_response_match_v2, the rubric-based ones,
hallucinations_v1) with a scripted judge found by name: prompts, verdict parsing,
majority votes, aggregation, statuses, failures and config loading."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from pyadk import types
from pyadk.evaluation import (
    EvalConfig,
    EvalConfigError,
    EvalMetric,
    EvalStatus,
    FinalResponseMatchV2Evaluator,
    HallucinationsCriterion,
    HallucinationsV1Evaluator,
    IntermediateData,
    Invocation,
    JudgeModelOptions,
    LlmAsAJudgeCriterion,
    Rubric,
    RubricBasedFinalResponseQualityV1Evaluator,
    RubricBasedToolUseV1Evaluator,
    RubricsBasedCriterion,
    get_eval_metrics_from_config,
    get_evaluator,
    load_eval_config,
)
from pyadk.evaluation._judge_answers import verdict_score
from pyadk.evaluation.final_response_match_v2 import parse_validity
from pyadk.evaluation.hallucinations_v1 import parse_validation_results
from pyadk.evaluation.rubric_based_evaluator import DefaultAutoRaterResponseParser

from .conftest import JUDGE_NAME, JudgeScript

VALID = '{"reasoning": "Same facts.", "is_the_agent_response_valid": "valid"}'
INVALID = '{"reasoning": "Wrong city.", "is_the_agent_response_valid": "invalid"}'


def content(text: str, role: str = "model") -> types.Content:
    return types.Content(role=role, parts=[types.Part(text=text)])


def invocation(
    question: str,
    answer: str | None,
    calls: Sequence[tuple[str, dict[str, Any], dict[str, Any]]] = (),
    rubrics: list[Rubric] | None = None,
) -> Invocation:
    """One turn; ``calls`` are (tool, args, result) with matching ids."""
    return Invocation(
        user_content=content(question, "user"),
        final_response=content(answer) if answer is not None else None,
        intermediate_data=IntermediateData(
            tool_uses=[
                types.FunctionCall(id=f"c{i}", name=name, args=args)
                for i, (name, args, _) in enumerate(calls)
            ],
            tool_responses=[
                types.FunctionResponse(id=f"c{i}", name=name, response=result)
                for i, (name, _, result) in enumerate(calls)
            ],
        ),
        rubrics=rubrics,
    )


def rubric(rubric_id: str, text: str, type: str | None = None) -> Rubric:
    return Rubric.model_validate(
        {"rubricId": rubric_id, "rubricContent": {"textProperty": text}, "type": type}
    )


def options(num_samples: int = 1) -> JudgeModelOptions:
    return JudgeModelOptions(judge_model=JUDGE_NAME, num_samples=num_samples)


def match_v2(threshold: float = 1.0, num_samples: int = 1) -> FinalResponseMatchV2Evaluator:
    criterion = LlmAsAJudgeCriterion(threshold=threshold, judge_model_options=options(num_samples))
    return FinalResponseMatchV2Evaluator(
        EvalMetric(metric_name="final_response_match_v2", criterion=criterion)
    )


def rubric_metric(
    cls: type[RubricBasedFinalResponseQualityV1Evaluator] | type[RubricBasedToolUseV1Evaluator],
    rubrics: list[Rubric],
    threshold: float = 0.5,
    num_samples: int = 1,
) -> Any:
    criterion = RubricsBasedCriterion(
        threshold=threshold, judge_model_options=options(num_samples), rubrics=rubrics
    )
    name = (
        "rubric_based_final_response_quality_v1"
        if cls is RubricBasedFinalResponseQualityV1Evaluator
        else "rubric_based_tool_use_quality_v1"
    )
    return cls(EvalMetric(metric_name=name, criterion=criterion))


def verdicts(*blocks: tuple[str, str, str]) -> str:
    """A rubric answer: (id, property, yes|no) blocks."""
    return "\n\n".join(
        f"ID: {rid}\nProperty: {prop}\nRationale: because {rid}\nVerdict: {verdict}"
        for rid, prop, verdict in blocks
    )


PARIS = invocation("Weather in Paris?", "It is sunny in Paris.")
PARIS_REF = invocation("Weather in Paris?", "Sunny in Paris.")
OSLO = invocation("Weather in Oslo?", "It is sunny in Paris.")
OSLO_REF = invocation("Weather in Oslo?", "Snowing in Oslo.")


# -- final_response_match_v2 -------------------------------------------------------------


async def test_v2_valid_and_invalid_verdicts_against_the_threshold(judge: JudgeScript) -> None:
    judge.replies = [VALID, INVALID]
    result = await match_v2(threshold=0.6).evaluate_invocations(
        [PARIS, OSLO], [PARIS_REF, OSLO_REF]
    )

    assert result.overall_score == 0.5
    assert result.overall_eval_status is EvalStatus.FAILED
    paris, oslo = result.per_invocation_results
    assert (paris.score, paris.eval_status, paris.details) == (1.0, EvalStatus.PASSED, {})
    assert (oslo.score, oslo.eval_status) == (0.0, EvalStatus.FAILED)
    assert oslo.details == {"reasoning": "Wrong city."}
    # The prompt shows the judge the question, the answer and the reference.
    first = judge.prompts[0]
    assert "Weather in Paris?" in first and "It is sunny in Paris." in first
    assert "<reference_response>\nSunny in Paris.\n</reference_response>" in first

    judge.replies = [VALID, INVALID]
    lenient = await match_v2(threshold=0.5).evaluate_invocations(
        [PARIS, OSLO], [PARIS_REF, OSLO_REF]
    )
    assert lenient.overall_eval_status is EvalStatus.PASSED


@pytest.mark.parametrize(
    ("answers", "score", "votes"),
    [
        ([VALID, INVALID, VALID], 1.0, {"valid": 2, "invalid": 1, "unread": 0}),
        ([INVALID, VALID, INVALID], 0.0, {"valid": 1, "invalid": 2, "unread": 0}),
        ([VALID, INVALID], 0.0, {"valid": 1, "invalid": 1, "unread": 0}),  # a tie is invalid
        (["no idea", "no idea", VALID], 1.0, {"valid": 1, "invalid": 0, "unread": 2}),
    ],
)
async def test_v2_majority_vote_over_samples(
    judge: JudgeScript, answers: list[str], score: float, votes: dict[str, int]
) -> None:
    judge.replies = list(answers)
    result = await match_v2(num_samples=len(answers)).evaluate_invocations([PARIS], [PARIS_REF])
    [verdict] = result.per_invocation_results
    assert verdict.score == score
    assert verdict.details["votes"] == votes
    assert len(judge.prompts) == len(answers)  # one request per sample


@pytest.mark.parametrize(
    ("answer", "score"),
    [
        (VALID, 1.0),
        ('```json\n{"reasoning": "ok", "is_the_agent_response_valid": "Valid",}\n```', 1.0),
        ('Here it is: {"is_the_agent_response_valid": ["invalid"]}', 0.0),
        ('"reasoning": [fine], "is_the_agent_response_valid": [valid],', 1.0),
        ('{"is_the_agent_response_valid": true}', 1.0),
        ('{"is_the_agent_response_valid": "almost"}', 0.0),
        ('{"is_the_agent_response_valid": "partially valid"}', 0.0),
        ('{"is_the_agent_response_invalid": "true"}', 0.0),
        ('{"is_the_agent_response_invalid": "false"}', 1.0),
        ("The response is valid.", None),
        ('{"is_the_agent_response_valid": "maybe"}', None),
    ],
)
def test_v2_reads_verdicts_in_the_forms_judges_write(answer: str, score: float | None) -> None:
    assert parse_validity(answer)[0] == score


async def test_v2_unreadable_answers_and_failing_judges_are_not_evaluated(
    judge: JudgeScript,
) -> None:
    judge.replies = ["I think it is fine.", "Looks right."]
    result = await match_v2(num_samples=2).evaluate_invocations([PARIS], [PARIS_REF])
    [verdict] = result.per_invocation_results
    assert (verdict.score, verdict.eval_status) == (None, EvalStatus.NOT_EVALUATED)
    assert verdict.details["reason"] == (
        "the judge's answer gives no valid/invalid verdict: 'I think it is fine.'"
    )
    assert (result.overall_score, result.overall_eval_status) == (None, EvalStatus.NOT_EVALUATED)

    judge.replies = [VALID, ConnectionError("judge unreachable")]
    result = await match_v2(num_samples=2).evaluate_invocations([PARIS], [PARIS_REF])
    [verdict] = result.per_invocation_results
    assert verdict.eval_status is EvalStatus.NOT_EVALUATED
    assert verdict.details["reason"] == (
        "judge model 'scripted-judge' failed: ConnectionError: judge unreachable"
    )

    # One invocation the judge could not read does not sink the others.
    judge.replies = ["???", VALID]
    result = await match_v2().evaluate_invocations([PARIS, PARIS], [PARIS_REF, PARIS_REF])
    assert (result.overall_score, result.overall_eval_status) == (1.0, EvalStatus.PASSED)


async def test_v2_needs_a_reference(judge: JudgeScript) -> None:
    no_reference = invocation("Weather in Paris?", None)
    result = await match_v2().evaluate_invocations([PARIS], [no_reference])
    [verdict] = result.per_invocation_results
    assert verdict.eval_status is EvalStatus.NOT_EVALUATED
    assert verdict.details == {
        "reason": "the expected invocation has no final response to compare with"
    }
    assert judge.prompts == []  # the judge is not asked about nothing
    with pytest.raises(ValueError, match="compares with expected invocations"):
        await match_v2().evaluate_invocations([PARIS])
    with pytest.raises(ValueError, match="2 actual invocations for 1 expected"):
        await match_v2().evaluate_invocations([PARIS, PARIS], [PARIS_REF])


async def test_v2_can_judge_what_was_said_on_the_way(judge: JudgeScript) -> None:
    said = invocation("Weather in Paris?", "Sunny.")
    assert isinstance(said.intermediate_data, IntermediateData)
    said.intermediate_data.intermediate_responses.append(("scout", [types.Part(text="Paris:")]))
    criterion = LlmAsAJudgeCriterion(
        threshold=1.0,
        judge_model_options=options(),
        include_intermediate_responses_in_final=True,
    )
    evaluator = FinalResponseMatchV2Evaluator(
        EvalMetric(metric_name="final_response_match_v2", criterion=criterion)
    )
    judge.replies = [VALID]
    await evaluator.evaluate_invocations([said], [PARIS_REF])
    assert "<agent_response>\nParis:\nSunny.\n</agent_response>" in judge.prompts[0]


# -- rubric-based metrics ----------------------------------------------------------------

CONCISE = rubric("concise", "The answer is one sentence.")
CITY = rubric("city", "The answer names the city asked about.")


async def test_rubric_scores_are_means_of_verdicts_per_invocation_and_overall(
    judge: JudgeScript,
) -> None:
    typed = rubric("tone", "The answer is polite.", type="FINAL_RESPONSE_QUALITY")
    other = rubric("tools", "A tool is called.", type="TOOL_USE_QUALITY")  # another metric's
    first = invocation("Weather in Paris?", "Sunny in Paris.", rubrics=[typed, other])
    second = invocation("Weather in Oslo?", "Dunno.", rubrics=[typed])
    judge.replies = [
        verdicts(
            ("concise", CONCISE.rubric_content.text_property, "yes"),
            ("city", CITY.rubric_content.text_property, "yes"),
            ("tone", "The answer is polite.", "no"),
        ),
        verdicts(
            ("concise", "The answer is one sentence.", "yes"),
            ("city", "The answer names the city asked about.", "no"),
            ("tone", "The answer is polite.", "no"),
        ),
    ]
    evaluator = rubric_metric(RubricBasedFinalResponseQualityV1Evaluator, [CONCISE, CITY], 0.6)
    result = await evaluator.evaluate_invocations([first, second])

    one, two = result.per_invocation_results
    assert one.score == pytest.approx(2 / 3) and one.eval_status is EvalStatus.PASSED
    assert two.score == pytest.approx(1 / 3) and two.eval_status is EvalStatus.FAILED
    assert [(s.rubric_id, s.score, s.rationale) for s in one.rubric_scores or []] == [
        ("concise", 1.0, "because concise"),
        ("city", 1.0, "because city"),
        ("tone", 0.0, "because tone"),
    ]
    assert result.overall_score == pytest.approx(0.5)  # 3 yes of 6 verdicts
    assert result.overall_eval_status is EvalStatus.FAILED
    assert {s.rubric_id: s.score for s in result.overall_rubric_scores or []} == {
        "concise": 1.0,
        "city": 0.5,
        "tone": 0.0,
    }
    # The prompt lists the rubrics with their ids, and the answer judged.
    assert "- [id: city] The answer names the city asked about." in judge.prompts[0]
    assert "<final_answer>\nSunny in Paris.\n</final_answer>" in judge.prompts[0]
    assert "A tool is called." not in judge.prompts[0]


async def test_rubric_majority_vote_per_rubric_over_samples(judge: JudgeScript) -> None:
    judge.replies = [
        verdicts(("concise", "x", "yes"), ("city", "x", "no")),
        verdicts(("concise", "x", "no"), ("city", "x", "no")),
        verdicts(("concise", "x", "yes"), ("city", "x", "yes")),
    ]
    evaluator = rubric_metric(
        RubricBasedFinalResponseQualityV1Evaluator, [CONCISE, CITY], num_samples=3
    )
    result = await evaluator.evaluate_invocations([PARIS])
    [verdict] = result.per_invocation_results
    assert {s.rubric_id: s.score for s in verdict.rubric_scores or []} == {
        "concise": 1.0,
        "city": 0.0,
    }
    assert verdict.score == 0.5


def test_rubric_answers_are_read_despite_markdown_and_missing_ids() -> None:
    answer = """Here is my evaluation.

**ID:** concise
**Property:** The answer is one sentence.
**Evidence:** none needed
**Rationale:** It is a single sentence:
it ends with a period.
**Verdict:** Yes.

- Property: "The answer names the city asked about."
- Rationale: Paris is named.
- Verdict: [no]
"""
    parsed = DefaultAutoRaterResponseParser().parse(answer)
    assert [(p.rubric_id, p.property_text, p.score) for p in parsed] == [
        ("concise", "The answer is one sentence.", 1.0),
        (None, '"The answer names the city asked about."', 0.0),
    ]
    assert parsed[0].rationale == "It is a single sentence:\nit ends with a period."


@pytest.mark.parametrize(
    ("verdict", "score"),
    [
        ("Yes.", 1.0),
        ("**No**", 0.0),
        ("[yes]", 1.0),
        ("fulfilled", 1.0),
        ("no - the city is missing", 0.0),
        ("yes|no", None),  # the instructions copied, not a verdict
        ("yes or no", None),
        ("unclear", None),
        ("", None),
    ],
)
def test_rubric_verdict_words(verdict: str, score: float | None) -> None:
    assert verdict_score(verdict) == score


async def test_rubrics_matched_by_text_when_the_judge_leaves_out_ids(judge: JudgeScript) -> None:
    judge.replies = [
        "Property: **the answer is ONE sentence.**\nRationale: yes\nVerdict: yes\n\n"
        "Property: The answer names the city asked about.\nRationale: no\nVerdict: no"
    ]
    evaluator = rubric_metric(RubricBasedFinalResponseQualityV1Evaluator, [CONCISE, CITY])
    [verdict] = (await evaluator.evaluate_invocations([PARIS])).per_invocation_results
    assert [(s.rubric_id, s.score) for s in verdict.rubric_scores or []] == [
        ("concise", 1.0),
        ("city", 0.0),
    ]


async def test_a_rubric_without_verdict_or_an_unreadable_answer_is_not_evaluated(
    judge: JudgeScript,
) -> None:
    evaluator = rubric_metric(RubricBasedFinalResponseQualityV1Evaluator, [CONCISE, CITY])
    judge.replies = [verdicts(("concise", "The answer is one sentence.", "yes"))]
    result = await evaluator.evaluate_invocations([PARIS])
    [verdict] = result.per_invocation_results
    assert (verdict.score, verdict.eval_status) == (None, EvalStatus.NOT_EVALUATED)
    assert verdict.details["reason"] == "the judge gave no verdict for rubric(s) city"
    assert result.overall_eval_status is EvalStatus.NOT_EVALUATED

    judge.replies = ["Both look good to me!"]
    [verdict] = (await evaluator.evaluate_invocations([PARIS])).per_invocation_results
    assert verdict.eval_status is EvalStatus.NOT_EVALUATED
    assert verdict.details["reason"].startswith(
        "the judge's answer has no readable rubric verdicts: 'Both look good"
    )


async def test_missing_or_clashing_rubrics_are_not_evaluated_with_a_reason(
    judge: JudgeScript,
) -> None:
    evaluator = rubric_metric(RubricBasedFinalResponseQualityV1Evaluator, [])
    untyped = invocation("q", "a", rubrics=[rubric("r", "Is short.")])  # no type: not ours
    [verdict] = (await evaluator.evaluate_invocations([untyped])).per_invocation_results
    assert verdict.eval_status is EvalStatus.NOT_EVALUATED
    assert verdict.details["reason"] == (
        "rubric_based_final_response_quality_v1 has no rubrics to check: give them in the "
        "criterion's 'rubrics', or as rubrics of type FINAL_RESPONSE_QUALITY of the eval "
        "case or invocation"
    )
    clash = invocation("q", "a", rubrics=[rubric("city", "Other.", "FINAL_RESPONSE_QUALITY")])
    evaluator = rubric_metric(RubricBasedFinalResponseQualityV1Evaluator, [CITY])
    [verdict] = (await evaluator.evaluate_invocations([clash])).per_invocation_results
    assert verdict.details["reason"] == (
        "rubric id 'city' is used twice (again in the eval case or invocation)"
    )
    assert judge.prompts == []


async def test_tool_use_rubrics_see_the_calls_their_arguments_and_results(
    judge: JudgeScript,
) -> None:
    called = invocation(
        "Weather in Paris?",
        "Sunny.",
        calls=[("get_weather", {"city": "Paris"}, {"sky": "sunny"})],
        rubrics=[rubric("order", "Weather is looked up once.", "TOOL_USE_QUALITY")],
    )
    judge.replies = [
        verdicts(("called", "get_weather is called.", "yes"), ("order", "Weather...", "yes"))
    ]
    evaluator = rubric_metric(
        RubricBasedToolUseV1Evaluator, [rubric("called", "get_weather is called.")], 1.0
    )
    result = await evaluator.evaluate_invocations([called])
    assert (result.overall_score, result.overall_eval_status) == (1.0, EvalStatus.PASSED)
    prompt = judge.prompts[0]
    steps = json.loads(prompt.split("<tool_calls_and_results>\n")[1].split("\n</tool")[0])
    assert steps == [
        {
            "step": 0,
            "tool_call": {"name": "get_weather", "args": {"city": "Paris"}},
            "tool_response": {"sky": "sunny"},
        }
    ]
    assert "- [id: order] Weather is looked up once." in prompt


# -- hallucinations_v1 -------------------------------------------------------------------


def hallucinations(evaluate_intermediate: bool = False) -> HallucinationsV1Evaluator:
    criterion = HallucinationsCriterion(
        threshold=0.8,
        judge_model_options=options(),
        evaluate_intermediate_nl_responses=evaluate_intermediate,
    )
    return HallucinationsV1Evaluator(
        EvalMetric(metric_name="hallucinations_v1", criterion=criterion)
    )


SEGMENTS = (
    "<sentence>It is sunny in Paris.</sentence>\n"
    "<sentence>It will rain tomorrow.</sentence>\n"
    "<sentence>Enjoy your day!</sentence>"
)
LABELS = """sentence: It is sunny in Paris.
label: supported
rationale: The tool says sunny.
supporting_excerpt: "sky": "sunny"
contradicting_excerpt: null

sentence: It will rain tomorrow.
label: unsupported
rationale: Nothing about tomorrow.
supporting_excerpt: null
contradicting_excerpt: null

sentence: Enjoy your day!
label: Not Applicable
rationale: A wish.
supporting_excerpt: null
contradicting_excerpt: null
"""


async def test_hallucinations_share_of_supported_sentences(judge: JudgeScript) -> None:
    answered = invocation(
        "Weather in Paris?",
        "It is sunny in Paris. It will rain tomorrow. Enjoy your day!",
        calls=[("get_weather", {"city": "Paris"}, {"sky": "sunny"})],
    )
    judge.replies = [SEGMENTS, LABELS]
    result = await hallucinations().evaluate_invocations([answered])

    [verdict] = result.per_invocation_results
    assert verdict.score == pytest.approx(2 / 3)
    assert verdict.eval_status is EvalStatus.FAILED  # threshold 0.8
    assert verdict.details == {
        "unsupported_sentences": [
            {
                "sentence": "It will rain tomorrow.",
                "label": "unsupported",
                "rationale": "Nothing about tomorrow.",
            }
        ]
    }
    segmenter, validator = judge.prompts
    assert "It is sunny in Paris. It will rain tomorrow. Enjoy your day!" in segmenter
    assert '"tool_output": {\n      "sky": "sunny"' in validator
    assert "User prompt:\nWeather in Paris?" in validator
    assert "<sentence>It will rain tomorrow.</sentence>" in validator
    assert result.overall_score == pytest.approx(2 / 3)


async def test_hallucinations_intermediate_texts_see_only_earlier_tool_results(
    judge: JudgeScript,
) -> None:
    events = Invocation.model_validate(
        {
            "userContent": {"role": "user", "parts": [{"text": "Weather in Paris?"}]},
            "finalResponse": {"role": "model", "parts": [{"text": "Sunny."}]},
            "intermediateData": {
                "invocationEvents": [
                    {
                        "author": "weather",
                        "content": {
                            "parts": [
                                {"text": "Let me check."},
                                {"functionCall": {"id": "c1", "name": "sky", "args": {}}},
                            ]
                        },
                    },
                    {
                        "author": "weather",
                        "content": {
                            "parts": [
                                {
                                    "functionResponse": {
                                        "id": "c1",
                                        "name": "sky",
                                        "response": {"sky": "sunny"},
                                    }
                                }
                            ]
                        },
                    },
                ]
            },
        }
    )
    one = "<sentence>{}</sentence>"
    label = (
        "sentence: {}\nlabel: {}\nrationale: r\n"
        "supporting_excerpt: null\ncontradicting_excerpt: null"
    )
    judge.replies = [
        one.format("Let me check."),
        label.format("Let me check.", "not_applicable"),
        one.format("Sunny."),
        label.format("Sunny.", "supported"),
    ]
    result = await hallucinations(evaluate_intermediate=True).evaluate_invocations([events])
    assert result.overall_score == 1.0 and result.overall_eval_status is EvalStatus.PASSED
    assert "No tools were called." in judge.prompts[1]  # before the call
    assert '"sky": "sunny"' in judge.prompts[3]  # the final answer sees the result


async def test_hallucinations_unreadable_judge_answers(judge: JudgeScript) -> None:
    judge.replies = ["Sure! The response has three sentences."]
    [verdict] = (await hallucinations().evaluate_invocations([PARIS])).per_invocation_results
    assert (verdict.score, verdict.eval_status) == (None, EvalStatus.NOT_EVALUATED)
    assert verdict.details["reason"] == (
        "the segmenter's answer has no <sentence> items: 'Sure! The response has three sentences.'"
    )
    judge.replies = ["<sentence>It is sunny in Paris.</sentence>", "All good."]
    [verdict] = (await hallucinations().evaluate_invocations([PARIS])).per_invocation_results
    assert verdict.details["reason"] == "the validator's answer labels no sentence: 'All good.'"
    silent = invocation("Weather?", None)
    [verdict] = (await hallucinations().evaluate_invocations([silent])).per_invocation_results
    assert verdict.details == {"reason": "no response to check"}


def test_validation_results_tolerate_markdown_and_spacing() -> None:
    rows = parse_validation_results(
        "**sentence:** A.\n**label:** `Supported`\n**rationale:** yes\n\n"
        "sentence: B.\nlabel: contradictory\nrationale: no\ncontradicting_excerpt: not B"
    )
    assert [(r["sentence"], r["label"], r.get("contradicting_excerpt")) for r in rows] == [
        ("A.", "supported", None),
        ("B.", "contradictory", "not B"),
    ]


# -- configuration and the registry ------------------------------------------------------


def test_judged_metrics_load_from_a_test_config(tmp_path: Path, judge: JudgeScript) -> None:
    path = tmp_path / "test_config.json"
    path.write_text(
        json.dumps(
            {
                "criteria": {
                    "final_response_match_v2": {
                        "threshold": 0.8,
                        "judgeModelOptions": {"judgeModel": JUDGE_NAME, "numSamples": 3},
                    },
                    "rubric_based_tool_use_quality_v1": {
                        "threshold": 1.0,
                        "judge_model_options": {"judge_model": JUDGE_NAME},
                        "rubrics": [
                            {
                                "rubric_id": "called",
                                "rubric_content": {"text_property": "get_weather is called."},
                            }
                        ],
                    },
                    "hallucinations_v1": {
                        "threshold": 0.9,
                        "judgeModelOptions": {"judgeModel": JUDGE_NAME},
                        "evaluateIntermediateNlResponses": True,
                    },
                    "rubric_based_final_response_quality_v1": 0.7,
                }
            }
        )
    )
    v2, tool_use, hallucination, quality = get_eval_metrics_from_config(load_eval_config(path))
    assert isinstance(v2.criterion, LlmAsAJudgeCriterion)
    assert v2.criterion.judge_model_options.num_samples == 3
    assert isinstance(tool_use.criterion, RubricsBasedCriterion)
    assert tool_use.criterion.rubrics[0].rubric_content.text_property == "get_weather is called."
    assert isinstance(hallucination.criterion, HallucinationsCriterion)
    assert hallucination.criterion.evaluate_intermediate_nl_responses is True

    assert isinstance(get_evaluator(v2), FinalResponseMatchV2Evaluator)
    assert isinstance(get_evaluator(tool_use), RubricBasedToolUseV1Evaluator)
    assert isinstance(get_evaluator(hallucination), HallucinationsV1Evaluator)
    # A bare threshold gets google-adk's default judge (resolved, not called).
    assert (quality.criterion, quality.threshold) == (None, 0.7)
    default = get_evaluator(quality)
    assert default.judge.name == "gemini-2.5-flash"
    assert default.judge.options.num_samples == 5


def test_config_and_registry_errors_name_the_metric_and_problem(tmp_path: Path) -> None:
    path = tmp_path / "test_config.json"
    path.write_text(
        json.dumps(
            {
                "criteria": {
                    "final_response_match_v2": {
                        "threshold": 1,
                        "judgeModelOptions": {"numSamples": 0},
                    }
                }
            }
        )
    )
    with pytest.raises(EvalConfigError) as invalid:
        load_eval_config(path)
    assert "criterion of 'final_response_match_v2'" in str(invalid.value)
    assert "judgeModelOptions.numSamples" in str(invalid.value)

    no_such_judge = EvalConfig.model_validate(
        {
            "criteria": {
                "hallucinations_v1": {"threshold": 1, "judgeModelOptions": {"judgeModel": "nope"}}
            }
        }
    )
    [metric] = get_eval_metrics_from_config(no_such_judge)
    with pytest.raises(
        ValueError,
        match=r"Metric 'hallucinations_v1': judge model 'nope' cannot be used: Model 'nope' not",
    ):
        get_evaluator(metric)

    with pytest.raises(ValueError) as safety:
        get_evaluator(EvalMetric(metric_name="safety_v1", threshold=1.0))
    assert str(safety.value).startswith(
        "Metric 'safety_v1' is not available offline: it needs Google Cloud's Vertex AI "
        "evaluation service, and pyadk computes every metric locally (known: "
    )
    assert "hallucinations_v1" in str(safety.value)

    with pytest.raises(TypeError, match="await evaluate_invocations"):
        match_v2_without_judge = get_evaluator(
            EvalMetric(metric_name="final_response_match_v2", threshold=1.0)
        )
        match_v2_without_judge.score_invocation(PARIS, PARIS_REF)
