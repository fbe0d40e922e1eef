"""``response_match_score``: how close the final answer is to the reference (ROUGE-1)."""

from __future__ import annotations

from typing import Any

from pyadk import types
from pyadk.evaluation._rouge import rouge1_fmeasure
from pyadk.evaluation.eval_case import Invocation
from pyadk.evaluation.eval_metrics import EvalMetric
from pyadk.evaluation.evaluator import Evaluator


def text_of(content: types.Content | None) -> str:
    """The text parts of ``content`` (thoughts left out), one per line."""
    if content is None or not content.parts:
        return ""
    return "\n".join(p.text for p in content.parts if p.text and not p.thought)


class ResponseEvaluator(Evaluator):
    """ROUGE-1 F-measure of the final response against the expected one, computed
    locally (no model, no cloud service)."""

    def __init__(self, eval_metric: EvalMetric) -> None:
        super().__init__(eval_metric)
        rouge1_fmeasure("check", "check")  # fails now, not mid-run, without the extra

    def score_invocation(
        self, actual: Invocation, expected: Invocation
    ) -> tuple[float, dict[str, Any]]:
        got, wanted = text_of(actual.final_response), text_of(expected.final_response)
        score = rouge1_fmeasure(got, wanted)
        return score, {} if score >= self.threshold else {"expected": wanted, "actual": got}
