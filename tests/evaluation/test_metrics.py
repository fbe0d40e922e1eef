"""The local metrics: tool trajectory match types, ROUGE-1 as google-adk computes it, and
the eval config that selects them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pyadk import types
from pyadk.evaluation import (
    EvalConfig,
    EvalConfigError,
    EvalMetric,
    EvalStatus,
    IntermediateData,
    Invocation,
    ResponseEvaluator,
    ToolTrajectoryCriterion,
    TrajectoryEvaluator,
    find_config_for_test_file,
    get_eval_metrics_from_config,
    get_evaluator,
    load_eval_config,
)
from pyadk.evaluation._rouge import rouge1_fmeasure, tokenize

MatchType = ToolTrajectoryCriterion.MatchType


def call(name: str, **args: object) -> types.FunctionCall:
    return types.FunctionCall(name=name, args=dict(args), id=f"id-{name}")


def invocation(calls: list[types.FunctionCall], answer: str | None = None) -> Invocation:
    return Invocation(
        user_content=types.Content(role="user", parts=[types.Part(text="q")]),
        final_response=types.Content(role="model", parts=[types.Part(text=answer)])
        if answer is not None
        else None,
        intermediate_data=IntermediateData(tool_uses=calls),
    )


def trajectory(match_type: MatchType | str, ignore_args: bool = False) -> TrajectoryEvaluator:
    criterion = ToolTrajectoryCriterion(
        threshold=1.0, match_type=match_type, ignore_args=ignore_args
    )
    return TrajectoryEvaluator(
        EvalMetric(metric_name="tool_trajectory_avg_score", criterion=criterion)
    )


T1, T2, T3 = call("t1", x=1), call("t2", y="a"), call("t3")
EXTRA = call("lookup", q="z")


@pytest.mark.parametrize(
    ("match_type", "actual", "expected", "score"),
    [
        (MatchType.EXACT, [T1, T2], [T1, T2], 1.0),
        (MatchType.EXACT, [T2, T1], [T1, T2], 0.0),
        (MatchType.EXACT, [T1, T2, EXTRA], [T1, T2], 0.0),
        (MatchType.EXACT, [], [], 1.0),
        (MatchType.IN_ORDER, [T1, EXTRA, T2, EXTRA, T3], [T1, T2, T3], 1.0),
        (MatchType.IN_ORDER, [T2, T1, T3], [T1, T2, T3], 0.0),
        (MatchType.IN_ORDER, [T1, T2], [T1, T2, T3], 0.0),
        (MatchType.IN_ORDER, [EXTRA], [], 1.0),
        (MatchType.ANY_ORDER, [T3, EXTRA, T1, T2], [T1, T2, T3], 1.0),
        (MatchType.ANY_ORDER, [T1], [T1, T1], 0.0),  # each actual call matches once
        (MatchType.ANY_ORDER, [T1, T1], [T1, T1], 1.0),
        (MatchType.ANY_ORDER, [T1, T2], [T1, T2, T3], 0.0),
    ],
)
def test_trajectory_match_types(
    match_type: MatchType,
    actual: list[types.FunctionCall],
    expected: list[types.FunctionCall],
    score: float,
) -> None:
    result = trajectory(match_type).evaluate_invocations(
        [invocation(actual)], [invocation(expected)]
    )
    assert result.overall_score == score
    assert result.overall_eval_status is (EvalStatus.PASSED if score == 1.0 else EvalStatus.FAILED)


def test_trajectory_compares_args_not_ids_and_can_ignore_args() -> None:
    same_but_other_id = types.FunctionCall(name="t1", args={"x": 1}, id="another")
    assert trajectory("EXACT").score_invocation(
        invocation([same_but_other_id]), invocation([T1])
    ) == (1.0, {})
    other_args = call("t1", x=2)
    score, details = trajectory("exact").score_invocation(
        invocation([other_args]), invocation([T1])
    )
    assert score == 0.0
    assert details["reason"] == "call 1: expected t1(x=1), got t1(x=2)"
    assert (
        trajectory("EXACT", ignore_args=True).score_invocation(
            invocation([other_args]), invocation([T1])
        )[0]
        == 1.0
    )


def test_trajectory_averages_over_invocations() -> None:
    result = trajectory(MatchType.EXACT).evaluate_invocations(
        [invocation([T1]), invocation([T2])], [invocation([T1]), invocation([T1])]
    )
    assert result.overall_score == 0.5
    assert [r.eval_status for r in result.per_invocation_results] == [
        EvalStatus.PASSED,
        EvalStatus.FAILED,
    ]
    assert result.per_invocation_results[1].details["actual"] == ["t2(y='a')"]


def test_trajectory_refuses_unequal_conversations_and_unknown_match_type() -> None:
    with pytest.raises(ValueError, match="1 actual invocations for 2 expected"):
        trajectory(MatchType.EXACT).evaluate_invocations(
            [invocation([])], [invocation([]), invocation([])]
        )
    with pytest.raises(ValueError, match="unknown match_type 'SOMETIMES'"):
        ToolTrajectoryCriterion(threshold=1.0, match_type="SOMETIMES")


# Scores computed by google-adk 2.13's response_match_score (rouge-score with its
# Unicode-aware tokenizer) for the same pairs.
ADK_ROUGE = [
    ("The weather in Paris is sunny and 25 degrees.", "It is sunny in Paris, 25 degrees.", 0.75),
    ("Running runners ran quickly", "the runner runs quick", 0.5),
    ("", "anything", 0.0),
    ("東京の天気は晴れです", "東京は晴れ", 0.666667),
    ("สวัสดีครับ ยินดีที่ได้รู้จัก", "สวัสดีครับ", 0.608696),
    ("Café naïve résumé Ωmega", "cafe naive resume omega", 0.0),
    ("Hello, WORLD!! it's 3.14 o'clock", "hello world its 3 14 oclock", 0.571429),
    ("ﬁnancial ﬁgures ②", "financial figures 2", 1.0),
]


@pytest.mark.parametrize(("candidate", "reference", "expected"), ADK_ROUGE)
def test_rouge1_matches_google_adk(candidate: str, reference: str, expected: float) -> None:
    assert rouge1_fmeasure(candidate, reference) == pytest.approx(expected, abs=1e-6)


def test_tokenize_stems_long_words_only() -> None:
    assert tokenize("Runs running ran RUNNER") == ["run", "run", "ran", "runner"]


def test_response_evaluator_scores_final_text_and_explains_a_miss() -> None:
    evaluator = ResponseEvaluator(EvalMetric(metric_name="response_match_score", threshold=0.8))
    actual = invocation([], "It is sunny in Paris.")
    score, details = evaluator.score_invocation(actual, invocation([], "Sunny in Paris."))
    assert score == pytest.approx(0.75)
    assert details == {"expected": "Sunny in Paris.", "actual": "It is sunny in Paris."}
    exact = evaluator.evaluate_invocations([actual], [invocation([], "it is SUNNY in paris")])
    assert exact.overall_score == 1.0 and exact.overall_eval_status is EvalStatus.PASSED
    assert evaluator.score_invocation(invocation([]), invocation([], "x"))[0] == 0.0


def test_config_defaults_and_criteria(tmp_path: Path) -> None:
    assert [(m.metric_name, m.threshold) for m in get_eval_metrics_from_config(EvalConfig())] == [
        ("tool_trajectory_avg_score", 1.0),
        ("response_match_score", 0.8),
    ]
    path = tmp_path / "test_config.json"
    path.write_text(
        json.dumps(
            {
                "criteria": {
                    "tool_trajectory_avg_score": {"threshold": 0.5, "matchType": "ANY_ORDER"},
                    "response_match_score": 0.6,
                }
            }
        )
    )
    metrics = get_eval_metrics_from_config(load_eval_config(path))
    trajectory_metric, response_metric = metrics
    assert isinstance(trajectory_metric.criterion, ToolTrajectoryCriterion)
    assert trajectory_metric.criterion.match_type is MatchType.ANY_ORDER
    assert trajectory_metric.effective_threshold() == 0.5
    assert response_metric.effective_threshold() == 0.6
    evaluator = get_evaluator(trajectory_metric)
    assert isinstance(evaluator, TrajectoryEvaluator)
    assert evaluator.match_type is MatchType.ANY_ORDER
    found = find_config_for_test_file(tmp_path / "some.test.json")
    assert found.criteria["response_match_score"] == 0.6
    assert find_config_for_test_file(tmp_path / "sub" / "x.json").criteria == EvalConfig().criteria


def test_config_errors_name_the_file_and_problem(tmp_path: Path) -> None:
    with pytest.raises(EvalConfigError, match="Eval config file not found"):
        load_eval_config(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{criteria: ")
    with pytest.raises(EvalConfigError, match="Cannot read eval config"):
        load_eval_config(bad)
    bad.write_text(json.dumps({"criteria": {"tool_trajectory_avg_score": {"matchType": "X"}}}))
    with pytest.raises(EvalConfigError, match="Invalid eval config"):
        load_eval_config(bad)
    with pytest.raises(ValueError, match=r"Unknown metric 'bleu'.*response_match_score"):
        get_evaluator(EvalMetric(metric_name="bleu", threshold=0.5))
    with pytest.raises(ValueError, match="has no threshold"):
        get_evaluator(EvalMetric(metric_name="response_match_score"))
