"""The base of the rubric-judged metrics: the judge answers yes or no per rubric; the
samples of an invocation vote per rubric, and scores are means of verdicts."""

from __future__ import annotations

import abc
import statistics
from typing import Any, ClassVar

from pyadk.evaluation._judge_answers import (
    excerpt,
    normalize_text,
    parse_field_blocks,
    verdict_score,
)
from pyadk.evaluation.common import EvalBaseModel
from pyadk.evaluation.eval_case import Invocation
from pyadk.evaluation.eval_metrics import EvalMetric, RubricsBasedCriterion
from pyadk.evaluation.eval_rubrics import Rubric, RubricScore
from pyadk.evaluation.evaluator import EvaluationResult, PerInvocationResult
from pyadk.evaluation.llm_as_judge import AutoRaterScore, LlmAsJudge
from pyadk.evaluation.llm_as_judge_utils import (
    get_average_rubric_score,
    get_eval_status,
    get_text_from_content,
)
from pyadk.models.llm_response import LlmResponse

ANSWER_FORMAT = """\
For every property, in the order given, write these four lines and nothing else:
ID: <the id from the property's [id: ...] tag>
Property: <the property's text, copied word for word, without the tag>
Rationale: <your reasoning, on one line>
Verdict: <yes or no>"""
"""The block format the rubric prompts ask for (and the default parser reads)."""


class RubricResponse(EvalBaseModel):
    """One rubric's block in a judge's answer."""

    rubric_id: str | None = None
    property_text: str | None = None
    rationale: str | None = None
    score: float | None = None


class AutoRaterResponseParser(abc.ABC):
    """Reads the per-rubric verdicts of a judge's answer."""

    @abc.abstractmethod
    def parse(self, auto_rater_response: str) -> list[RubricResponse]:
        """The rubric blocks found in the answer, in order."""


class DefaultAutoRaterResponseParser(AutoRaterResponseParser):
    """Reads ``ID:`` / ``Property:`` / ``Rationale:`` / ``Verdict:`` blocks (markdown
    around the field names is tolerated; a verdict counts by its first word)."""

    def parse(self, auto_rater_response: str) -> list[RubricResponse]:
        fields = ("id", "property", "evidence", "rationale", "verdict")
        blocks = parse_field_blocks(auto_rater_response, fields, starters=("id", "property"))
        return [
            RubricResponse(
                rubric_id=block.get("id") or None,
                property_text=block.get("property"),
                rationale=block.get("rationale"),
                score=verdict_score(block.get("verdict")),
            )
            for block in blocks
            if "verdict" in block
        ]


class PerInvocationResultsAggregator(abc.ABC):
    """Folds the samples of one invocation into one result."""

    @abc.abstractmethod
    def aggregate(
        self, per_invocation_samples: list[PerInvocationResult], threshold: float
    ) -> PerInvocationResult:
        """One result for the invocation."""


class MajorityVotePerInvocationResultsAggregator(PerInvocationResultsAggregator):
    """Per rubric, the verdict most samples gave (a tie is a no; samples without a
    verdict do not vote). The invocation's score is the mean over its rubrics; when a
    rubric got no verdict from any sample the invocation is not evaluated."""

    def aggregate(
        self, per_invocation_samples: list[PerInvocationResult], threshold: float
    ) -> PerInvocationResult:
        votes: dict[str, tuple[list[RubricScore], list[RubricScore], list[RubricScore]]] = {}
        for sample in per_invocation_samples:
            for rubric_score in sample.rubric_scores or ():
                yes, no, none = votes.setdefault(rubric_score.rubric_id, ([], [], []))
                if rubric_score.score is None:
                    none.append(rubric_score)
                else:
                    (yes if rubric_score.score >= 0.5 else no).append(rubric_score)
        chosen = [
            (yes[0] if len(yes) > len(no) else no[0]) if yes or no else none[0]
            for yes, no, none in votes.values()
        ]
        first = per_invocation_samples[0]
        unscored = [s.rubric_id for s in chosen if s.score is None]
        details: dict[str, Any] = {}
        score = None
        if len(unscored) < len(chosen):
            if unscored:
                details["reason"] = f"the judge gave no verdict for rubric(s) {', '.join(unscored)}"
        else:  # no verdict at all: why the (first) answer could not be read
            reason = next((s.details.get("reason") for s in per_invocation_samples), None)
            details["reason"] = reason or "the judge gave no verdict"
        if not details:
            score = get_average_rubric_score(chosen)
        return PerInvocationResult(
            actual_invocation=first.actual_invocation,
            expected_invocation=first.expected_invocation,
            score=score,
            eval_status=get_eval_status(score, threshold),
            details=details,
            rubric_scores=chosen,
        )


class InvocationResultsSummarizer(abc.ABC):
    """Folds the invocations' results into the conversation's."""

    @abc.abstractmethod
    def summarize(
        self, per_invocation_results: list[PerInvocationResult], threshold: float
    ) -> EvaluationResult:
        """The conversation's result."""


class MeanInvocationResultsSummarizer(InvocationResultsSummarizer):
    """The mean of every rubric verdict of the judged invocations, and each rubric's
    mean over them."""

    def summarize(
        self, per_invocation_results: list[PerInvocationResult], threshold: float
    ) -> EvaluationResult:
        judged = [r for r in per_invocation_results if r.score is not None]
        by_rubric: dict[str, list[float]] = {}
        for result in judged:
            for rubric_score in result.rubric_scores or ():
                if rubric_score.score is not None:
                    by_rubric.setdefault(rubric_score.rubric_id, []).append(rubric_score.score)
        every = [score for scores in by_rubric.values() for score in scores]
        overall = statistics.fmean(every) if every else None
        return EvaluationResult(
            overall_score=overall,
            overall_eval_status=get_eval_status(overall, threshold),
            per_invocation_results=per_invocation_results,
            overall_rubric_scores=[
                RubricScore(
                    rubric_id=rubric_id,
                    score=statistics.fmean(scores),
                    rationale="The mean over the invocations (see each for its rationale).",
                )
                for rubric_id, scores in by_rubric.items()
            ],
        )


class RubricBasedEvaluator(LlmAsJudge[RubricsBasedCriterion]):
    """A metric whose judge checks rubrics. The rubrics of an invocation are the
    criterion's plus the invocation's own of this metric's ``rubric_type`` (the eval
    runner gives each actual invocation the rubrics of its eval case and expected
    invocation); rubric ids must be unique among them."""

    RUBRIC_TYPE: ClassVar[str | None] = None
    """The rubric type of an eval case's rubrics this metric takes (without a
    ``rubric_type`` argument)."""

    def __init__(
        self,
        eval_metric: EvalMetric,
        criterion_type: type[RubricsBasedCriterion] = RubricsBasedCriterion,
        auto_rater_response_parser: AutoRaterResponseParser | None = None,
        per_invocation_results_aggregator: PerInvocationResultsAggregator | None = None,
        invocation_results_summarizer: InvocationResultsSummarizer | None = None,
        rubric_type: str | None = None,
    ) -> None:
        super().__init__(eval_metric, criterion_type)
        self._rubric_type = rubric_type if rubric_type is not None else self.RUBRIC_TYPE
        self._auto_rater_response_parser = (
            auto_rater_response_parser or DefaultAutoRaterResponseParser()
        )
        self._per_invocation_results_aggregator = (
            per_invocation_results_aggregator or MajorityVotePerInvocationResultsAggregator()
        )
        self._invocation_results_summarizer = (
            invocation_results_summarizer or MeanInvocationResultsSummarizer()
        )
        self._rubrics: list[Rubric] = list(self._criterion.rubrics)
        self._effective_rubrics_list: list[Rubric] | None = None

    def create_effective_rubrics_list(self, invocation_rubrics: list[Rubric] | None) -> None:
        """Sets the rubrics the next answers are read against; ValueError when there
        are none or two share an id."""
        own = [
            r
            for r in invocation_rubrics or ()
            if not self._rubric_type or r.type == self._rubric_type
        ]
        by_id: dict[str, Rubric] = {}
        scopes = (("the criterion", self._rubrics), ("the eval case or invocation", own))
        for scope, rubrics in scopes:
            for rubric in rubrics:
                if rubric.rubric_id in by_id:
                    raise ValueError(
                        f"rubric id {rubric.rubric_id!r} is used twice (again in {scope})"
                    )
                by_id[rubric.rubric_id] = rubric
        if not by_id:
            kind = f" of type {self._rubric_type}" if self._rubric_type else ""
            raise ValueError(
                f"{self._eval_metric.metric_name} has no rubrics to check: give them in the "
                f"criterion's 'rubrics', or as rubrics{kind} of the eval case or invocation"
            )
        self._effective_rubrics_list = list(by_id.values())

    def get_effective_rubrics_list(self) -> list[Rubric]:
        """The rubrics set by :meth:`create_effective_rubrics_list`."""
        if self._effective_rubrics_list is None:
            raise ValueError("No rubrics yet: call create_effective_rubrics_list first.")
        return self._effective_rubrics_list

    def rubrics_text(self) -> str:
        """The effective rubrics, one ``- [id: ...] property`` line each."""
        return "\n".join(
            f"- [id: {r.rubric_id}] {r.rubric_content.text_property or ''}"
            for r in self.get_effective_rubrics_list()
        )

    def final_response_text(self, invocation: Invocation) -> str:
        """The final response (with the text said on the way, when the criterion asks)."""
        intermediate = self._criterion.include_intermediate_responses_in_final
        text = get_text_from_content(
            invocation, include_intermediate_responses_in_final=intermediate
        )
        return text or ""

    def convert_auto_rater_response_to_score(
        self, auto_rater_response: LlmResponse
    ) -> AutoRaterScore:
        """A score per effective rubric (matched by id, else by its text); the answer's
        score is their mean, or None when a rubric got no readable verdict."""
        rubrics = self.get_effective_rubrics_list()
        answer = get_text_from_content(auto_rater_response.content) or ""
        found = self._auto_rater_response_parser.parse(answer) if answer else []
        by_id = {r.rubric_id: r for r in rubrics}
        by_text = {normalize_text(r.rubric_content.text_property): r for r in rubrics}
        verdicts: dict[str, RubricResponse] = {}
        for response in found:
            rubric = by_id.get(response.rubric_id or "") or by_text.get(
                normalize_text(response.property_text)
            )
            if rubric is not None and rubric.rubric_id not in verdicts:
                verdicts[rubric.rubric_id] = response
        scores = [
            RubricScore(
                rubric_id=r.rubric_id,
                rationale=verdicts[r.rubric_id].rationale if r.rubric_id in verdicts else None,
                score=verdicts[r.rubric_id].score if r.rubric_id in verdicts else None,
            )
            for r in rubrics
        ]
        missing = [s.rubric_id for s in scores if s.score is None]
        if not missing:
            return AutoRaterScore(score=get_average_rubric_score(scores), rubric_scores=scores)
        if not verdicts:
            reason = f"the judge's answer has no readable rubric verdicts: {excerpt(answer)!r}"
        else:
            reason = f"the judge gave no verdict for rubric(s) {', '.join(missing)}"
        return AutoRaterScore(rubric_scores=scores, details={"reason": reason})

    def aggregate_per_invocation_samples(
        self, per_invocation_samples: list[PerInvocationResult]
    ) -> PerInvocationResult:
        return self._per_invocation_results_aggregator.aggregate(
            per_invocation_samples, self.threshold
        )

    def aggregate_invocation_results(
        self, per_invocation_results: list[PerInvocationResult]
    ) -> EvaluationResult:
        return self._invocation_results_summarizer.summarize(per_invocation_results, self.threshold)
