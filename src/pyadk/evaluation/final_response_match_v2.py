"""``final_response_match_v2``: a judge model decides whether the final response says
what the reference response says (1 valid, 0 invalid; the majority of samples wins)."""

from __future__ import annotations

import re
from string import Template
from typing import ClassVar

from pyadk.evaluation._judge_answers import NO, YES, excerpt, json_object
from pyadk.evaluation.eval_case import Invocation
from pyadk.evaluation.eval_metrics import EvalMetric, EvalStatus, LlmAsAJudgeCriterion
from pyadk.evaluation.evaluator import EvaluationResult, PerInvocationResult
from pyadk.evaluation.llm_as_judge import AutoRaterScore, LlmAsJudge
from pyadk.evaluation.llm_as_judge_utils import get_eval_status, get_text_from_content
from pyadk.models.llm_response import LlmResponse

VALID_FIELD = "is_the_agent_response_valid"
INVALID_FIELD = "is_the_agent_response_invalid"

FINAL_RESPONSE_MATCH_V2_PROMPT = Template("""\
You grade the answer an AI agent gave a user by comparing it with a reference answer \
that a person wrote and checked.

The agent's answer is valid when it gives the user the key facts of the reference: \
the same entities, the same numbers in the same units, the same conclusion. Be \
flexible about everything else:
- wording, order, length and layout may differ (a sentence instead of a list, a table \
instead of prose);
- extra information is fine when it does not contradict the reference;
- equivalent forms are the same answer ("TX" and "Texas", 1000000 and 1,000,000, a \
rounding that keeps the precision the user asked for).
The answer is invalid when it leaves out or contradicts a key fact, uses another unit, \
says it cannot answer while the reference does, or asks the user for something the \
reference did not need. Do not redo calculations or look things up: where the two \
disagree on such a result, the reference is right.

<user_prompt>
$prompt
</user_prompt>

<agent_response>
$response
</agent_response>

<reference_response>
$reference
</reference_response>

Reply with one JSON object and nothing else:
{"reasoning": "<a few sentences>", "is_the_agent_response_valid": "valid" or "invalid"}
""")

_LOOSE_FIELD = re.compile(
    r"is_the_agent_response_(valid|invalid)\W*?[:=]\s*\[?\s*[\"']?([A-Za-z][A-Za-z _]*)",
    re.IGNORECASE,
)


def parse_validity(answer: str) -> tuple[float | None, str | None]:
    """(1.0 valid / 0.0 invalid / None unreadable, the judge's reasoning) from an
    answer that should hold ``{"is_the_agent_response_valid": "valid"|"invalid"}``;
    a ``..._invalid`` field is read the other way round, ``true``/``false`` count."""
    data = json_object(answer)
    if data is not None:
        reasoning = data.get("reasoning")
        reasoning = reasoning if isinstance(reasoning, str) or reasoning is None else str(reasoning)
        for field, inverted in ((VALID_FIELD, False), (INVALID_FIELD, True)):
            if field in data:
                return _label_score(data[field], inverted), reasoning
    match = _LOOSE_FIELD.search(answer)
    if match is None:
        return None, None
    return _label_score(match.group(2), match.group(1).lower() == "invalid"), None


def _label_score(label: object, inverted: bool) -> float | None:
    if isinstance(label, list) and len(label) == 1:
        label = label[0]
    if isinstance(label, bool):
        word = "true" if label else "false"
    elif isinstance(label, str):
        word = label.strip().lower().replace(" ", "_")
    else:
        return None
    if word in YES:
        return 0.0 if inverted else 1.0
    if word in NO or word in {"almost", "partially_valid", "partially"}:
        return 1.0 if inverted else 0.0
    return None


class FinalResponseMatchV2Evaluator(LlmAsJudge[LlmAsAJudgeCriterion]):
    """Each invocation scores 1 when the judge finds its final response valid against
    the expected one (majority of ``num_samples``; a tie is invalid), else 0; the
    case's score is the share of valid invocations among those judged."""

    criterion_type: ClassVar[type[LlmAsAJudgeCriterion]] = LlmAsAJudgeCriterion

    def __init__(self, eval_metric: EvalMetric) -> None:
        super().__init__(eval_metric, LlmAsAJudgeCriterion, expected_invocations_required=True)

    def format_auto_rater_prompt(self, actual: Invocation, expected: Invocation | None) -> str:
        """The prompt; ValueError when there is no reference response to compare with."""
        if expected is None:
            raise ValueError("final_response_match_v2 needs the expected invocation.")
        intermediate = self._criterion.include_intermediate_responses_in_final
        reference = get_text_from_content(
            expected, include_intermediate_responses_in_final=intermediate
        )
        if not reference:
            raise ValueError("the expected invocation has no final response to compare with")
        response = get_text_from_content(
            actual, include_intermediate_responses_in_final=intermediate
        )
        return FINAL_RESPONSE_MATCH_V2_PROMPT.substitute(
            prompt=get_text_from_content(expected.user_content) or "",
            response=response or "",
            reference=reference,
        )

    def convert_auto_rater_response_to_score(
        self, auto_rater_response: LlmResponse
    ) -> AutoRaterScore:
        answer = get_text_from_content(auto_rater_response.content)
        if not answer:
            return AutoRaterScore(details={"reason": "the judge's answer has no text"})
        score, reasoning = parse_validity(answer)
        if score is None:
            reason = f"the judge's answer gives no valid/invalid verdict: {excerpt(answer)!r}"
            return AutoRaterScore(details={"reason": reason})
        return AutoRaterScore(score=score, details={"reasoning": reasoning} if reasoning else {})

    def aggregate_per_invocation_samples(
        self, per_invocation_samples: list[PerInvocationResult]
    ) -> PerInvocationResult:
        """The majority verdict (a tie is invalid), with the vote counts; unreadable
        answers do not vote, and with no readable answer the invocation is not
        evaluated."""
        valid = [s for s in per_invocation_samples if s.score == 1.0]
        invalid = [s for s in per_invocation_samples if s.score == 0.0]
        unread = len(per_invocation_samples) - len(valid) - len(invalid)
        if not valid and not invalid:
            chosen = per_invocation_samples[0]
        else:
            chosen = valid[0] if len(valid) > len(invalid) else invalid[0]
        details = dict(chosen.details)
        if chosen.score == 1.0:
            details.pop("reasoning", None)  # like the other metrics: details explain a miss
        if len(per_invocation_samples) > 1:
            details["votes"] = {"valid": len(valid), "invalid": len(invalid), "unread": unread}
        return PerInvocationResult(
            actual_invocation=chosen.actual_invocation,
            expected_invocation=chosen.expected_invocation,
            score=chosen.score,
            eval_status=get_eval_status(chosen.score, self.threshold),
            details=details,
        )

    def aggregate_invocation_results(
        self, per_invocation_results: list[PerInvocationResult]
    ) -> EvaluationResult:
        """The share of judged invocations that are valid (None when none was judged)."""
        judged = [
            r.score
            for r in per_invocation_results
            if r.score is not None and r.eval_status is not EvalStatus.NOT_EVALUATED
        ]
        overall = sum(judged) / len(judged) if judged else None
        return EvaluationResult(
            overall_score=overall,
            overall_eval_status=get_eval_status(overall, self.threshold),
            per_invocation_results=per_invocation_results,
        )
