"""``hallucinations_v1``: does the agent say only what its context supports? A judge
model splits each response into sentences, then labels every sentence against the
context (developer instructions, the user's message, tool calls and their results);
the score is the share of sentences that are supported or need no support."""

from __future__ import annotations

import json
import re
import statistics
from dataclasses import dataclass
from string import Template
from typing import Any, ClassVar

from pyadk import types
from pyadk.evaluation._judge_answers import excerpt, field_name, parse_field_blocks
from pyadk.evaluation.eval_case import IntermediateData, Invocation, InvocationEvents
from pyadk.evaluation.eval_metrics import EvalMetric, EvalStatus, HallucinationsCriterion
from pyadk.evaluation.evaluator import EvaluationResult, Evaluator, PerInvocationResult
from pyadk.evaluation.judge_model import JudgeModel
from pyadk.evaluation.llm_as_judge import criterion_of
from pyadk.evaluation.llm_as_judge_utils import (
    developer_instructions,
    get_eval_status,
    get_text_from_content,
    get_tool_declarations_as_json_str,
    tool_calls_with_responses,
)

SEGMENTER_PROMPT = Template("""\
Split the response below into sentences so that each can be checked on its own.

Rules:
- Cover the whole response: every sentence, in order.
- Copy each sentence exactly, word for word, with its punctuation; do not reword, \
merge or invent sentences.
- Each bullet or numbered item is its own sentence, and so is each nested item; the \
words that introduce a list are a sentence too.
- A table stays whole, as one sentence.
- Leave out pieces that are only symbols or formatting.

Write each sentence between <sentence> and </sentence>, one per line, and nothing else.

Example response:
Two cities are on the list:
1. Paris is in France.
2. Oslo is in Norway.
Have a good trip!

Example output:
<sentence>Two cities are on the list:</sentence>
<sentence>1. Paris is in France.</sentence>
<sentence>2. Oslo is in Norway.</sentence>
<sentence>Have a good trip!</sentence>

The response:
<response>
$response
</response>
""")

VALIDATOR_PROMPT = Template("""\
You check the sentences of an AI agent's response against the context the agent had. \
Label every sentence with one of:
- supported: the context states it (quote the part that does);
- unsupported: the context neither states nor contradicts it;
- contradictory: the context says otherwise (quote that part);
- disputed: the context both supports and contradicts it (quote both);
- not_applicable: it states no fact to check (a greeting, an opinion, a question, a \
plan, an offer of help, a calculation shown step by step).

Be strict: supported, contradictory and disputed need a plain excerpt of the context \
that settles the matter; anything less is unsupported. Tool results are evidence \
only for the call that produced them, and only if that call fits what the sentence \
is about.

For every sentence, in order, write these five lines and nothing else:
sentence: <the sentence, copied>
label: <one of the labels>
rationale: <why, briefly>
supporting_excerpt: <an excerpt, or null>
contradicting_excerpt: <an excerpt, or null>

<context>
$context
</context>

<sentences>
$sentences
</sentences>
""")

POSITIVE_LABELS = frozenset({"supported", "not_applicable"})
NEGATIVE_LABELS = frozenset({"unsupported", "contradictory", "disputed"})
_SENTENCE = re.compile(r"<sentence>(.*?)</sentence>", re.DOTALL | re.IGNORECASE)
_VALIDATION_FIELDS = (
    "sentence",
    "label",
    "rationale",
    "supporting_excerpt",
    "contradicting_excerpt",
)


@dataclass(frozen=True)
class EvaluationStep:
    """A text the agent said and the context it is checked against."""

    context: str
    nl_response: str


def _answer(
    calls: list[tuple[types.FunctionCall, types.FunctionResponse | None]],
    response: types.FunctionResponse,
) -> None:
    """Pairs ``response`` with its call: the same id, else the first unanswered call
    of the same name."""
    for index, (call, answered) in enumerate(calls):
        same = call.id == response.id if response.id else call.name == response.name
        if answered is None and same:
            calls[index] = (call, response)
            return


def parse_sentences(answer: str) -> list[str]:
    """The ``<sentence>`` items of a segmenter answer."""
    return [s.strip() for s in _SENTENCE.findall(answer) if s.strip()]


def parse_validation_results(answer: str) -> list[dict[str, str | None]]:
    """The labelled sentences of a validator answer (label lowercase, with spaces and
    hyphens as underscores; ``null`` excerpts as None)."""
    results: list[dict[str, str | None]] = []
    for block in parse_field_blocks(answer, _VALIDATION_FIELDS, starters=("sentence",)):
        if "label" not in block:
            continue
        row: dict[str, str | None] = {
            key: (None if value.strip().lower() in {"null", "none", ""} else value.strip())
            for key, value in block.items()
        }
        row["label"] = field_name((block["label"]).strip("`*'\". "))
        results.append(row)
    return results


class HallucinationsV1Evaluator(Evaluator):
    """Per invocation, the mean over its checked texts (the final response, and with
    ``evaluate_intermediate_nl_responses`` the text said on the way) of the share of
    sentences labelled supported or not_applicable; the case's score is the mean over
    invocations. ``num_samples`` is not used: each text costs two judge requests."""

    criterion_type: ClassVar[type[HallucinationsCriterion]] = HallucinationsCriterion

    def __init__(self, eval_metric: EvalMetric) -> None:
        super().__init__(eval_metric)
        self._eval_metric = eval_metric
        self._criterion = criterion_of(eval_metric, HallucinationsCriterion)
        self.judge = JudgeModel(self._criterion.judge_model_options, eval_metric.metric_name)

    def score_invocation(
        self, actual: Invocation, expected: Invocation
    ) -> tuple[float, dict[str, Any]]:
        raise TypeError("hallucinations_v1 is judged by a model: await evaluate_invocations.")

    @property
    def expected_invocations_required(self) -> bool:
        return False

    async def evaluate_invocations(
        self,
        actual_invocations: list[Invocation],
        expected_invocations: list[Invocation] | None = None,
        conversation_scenario: Any = None,
    ) -> EvaluationResult:
        """Checks each invocation in turn (expected invocations are not needed)."""
        del conversation_scenario
        expected: list[Invocation | None] = list(expected_invocations or [])
        if expected_invocations is None:
            expected = [None] * len(actual_invocations)
        elif len(expected) != len(actual_invocations):
            raise ValueError(
                f"{len(actual_invocations)} actual invocations for {len(expected)} expected ones."
            )
        results = [
            await self._evaluate_invocation(a, e)
            for a, e in zip(actual_invocations, expected, strict=True)
        ]
        scores = [r.score for r in results if r.score is not None]
        overall = statistics.fmean(scores) if scores else None
        return EvaluationResult(overall, get_eval_status(overall, self.threshold), results)

    async def close(self) -> None:
        """Closes the judge model's client, if one was made."""
        await self.judge.close()

    def _get_steps_to_evaluate(self, actual: Invocation) -> list[EvaluationStep]:
        """The texts to check, each with the evidence gathered before it was said."""
        steps: list[EvaluationStep] = []
        intermediate = self._criterion.evaluate_intermediate_nl_responses
        data = actual.intermediate_data
        if isinstance(data, InvocationEvents):
            seen: list[tuple[types.FunctionCall, types.FunctionResponse | None]] = []
            for event in data.invocation_events:
                parts = (event.content.parts if event.content else None) or []
                texts = [p.text for p in parts if p.text and not p.thought]
                if intermediate:
                    context = self._context(actual, seen)
                    steps.extend(EvaluationStep(context, text) for text in texts)
                for part in parts:
                    if part.function_call is not None:
                        seen.append((part.function_call, None))
                    elif part.function_response is not None:
                        _answer(seen, part.function_response)
        elif isinstance(data, IntermediateData) and intermediate:
            context = self._context(actual, tool_calls_with_responses(actual))
            for _, parts in data.intermediate_responses:
                texts = [p.text for p in parts if p.text and not p.thought]
                steps.extend(EvaluationStep(context, text) for text in texts)
        final = get_text_from_content(actual.final_response)
        if final:
            steps.append(
                EvaluationStep(self._context(actual, tool_calls_with_responses(actual)), final)
            )
        return steps

    def _context(
        self,
        actual: Invocation,
        calls: list[tuple[types.FunctionCall, types.FunctionResponse | None]],
    ) -> str:
        tool_steps = [
            {
                "tool_call": {"name": call.name, "args": call.args or {}},
                "tool_output": response.response if response is not None else None,
            }
            for call, response in calls
        ]
        sections = [
            ("Developer instructions", developer_instructions(actual) or "(none recorded)"),
            ("User prompt", get_text_from_content(actual.user_content) or ""),
            ("Tool definitions", get_tool_declarations_as_json_str(actual)),
            (
                "Tool calls and their outputs",
                json.dumps(tool_steps, indent=2, ensure_ascii=False, default=repr)
                if tool_steps
                else "No tools were called.",
            ),
        ]
        return "\n\n".join(f"{title}:\n{body}" for title, body in sections)

    async def _evaluate_invocation(
        self, actual: Invocation, expected: Invocation | None
    ) -> PerInvocationResult:
        steps = self._get_steps_to_evaluate(actual)
        if not steps:
            return PerInvocationResult(
                actual, expected, None, EvalStatus.NOT_EVALUATED, {"reason": "no response to check"}
            )
        scores: list[float] = []
        problems: list[str] = []
        flagged: list[dict[str, str | None]] = []
        for step in steps:
            score, labelled, problem = await self._evaluate_nl_response(
                step.nl_response, step.context
            )
            if score is None:
                problems.append(problem or "not checked")
                continue
            scores.append(score)
            flagged += [row for row in labelled if row["label"] in NEGATIVE_LABELS]
        score = statistics.fmean(scores) if scores else None
        details: dict[str, Any] = {}
        if flagged:
            details["unsupported_sentences"] = [
                {key: row.get(key) for key in ("sentence", "label", "rationale")} for row in flagged
            ]
        if problems:
            details["reason"] = "; ".join(problems)
        return PerInvocationResult(
            actual, expected, score, get_eval_status(score, self.threshold), details
        )

    async def _evaluate_nl_response(
        self, nl_response: str, context: str
    ) -> tuple[float | None, list[dict[str, str | None]], str | None]:
        """(score, labelled sentences, why there is no score) for one text."""
        try:
            answer = await self._ask(SEGMENTER_PROMPT.substitute(response=nl_response))
        except Exception as error:
            return None, [], f"segmenting: {self.judge.failure(error)}"
        sentences = parse_sentences(answer)
        if not sentences:
            return None, [], f"the segmenter's answer has no <sentence> items: {excerpt(answer)!r}"
        listed = "\n".join(f"<sentence>{s}</sentence>" for s in sentences)
        try:
            answer = await self._ask(VALIDATOR_PROMPT.substitute(context=context, sentences=listed))
        except Exception as error:
            return None, [], f"validating: {self.judge.failure(error)}"
        labelled = parse_validation_results(answer)
        verdicts = [
            1.0 if row["label"] in POSITIVE_LABELS else 0.0
            for row in labelled
            if row["label"] in POSITIVE_LABELS | NEGATIVE_LABELS
        ]
        if not verdicts:
            return None, [], f"the validator's answer labels no sentence: {excerpt(answer)!r}"
        return statistics.fmean(verdicts), labelled, None

    async def _ask(self, prompt: str) -> str:
        response = await self.judge.ask(self.judge.request(prompt))
        return get_text_from_content(response.content) or ""
