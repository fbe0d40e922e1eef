"""``per_turn_user_simulator_quality_v1``: does the simulated user keep to its scenario?
The first message must be the starting prompt; a judge model checks each later one,
and whether the conversation ended when it should have."""

from __future__ import annotations

import asyncio
from typing import Any, ClassVar

from pyadk.evaluation._judge_answers import excerpt
from pyadk.evaluation.eval_case import ConversationScenario, Invocation
from pyadk.evaluation.eval_metrics import EvalMetric, EvalStatus, LlmBackedUserSimulatorCriterion
from pyadk.evaluation.evaluator import EvaluationResult, Evaluator, PerInvocationResult
from pyadk.evaluation.judge_model import JudgeModel
from pyadk.evaluation.llm_as_judge import criterion_of
from pyadk.evaluation.llm_as_judge_utils import get_eval_status, get_text_from_content
from pyadk.evaluation.simulation.per_turn_user_simulator_quality_prompts import (
    get_per_turn_user_simulator_quality_prompt,
    parse_is_valid,
)


def _history(invocations: list[Invocation]) -> str:
    lines = []
    for invocation in invocations:
        if (said := get_text_from_content(invocation.user_content)) is not None:
            lines.append(f"user: {said}")
        if (answer := get_text_from_content(invocation.final_response)) is not None:
            lines.append(f"agent: {answer}")
    return "\n\n".join(lines)


class PerTurnUserSimulatorQualityV1(Evaluator):
    """Per user message: 1 when valid (the first: when it is the starting prompt;
    later ones: the majority of ``num_samples`` judge answers, a tie is invalid), else
    0. When the judge finds the conversation should not have ended where it did, the
    last message scores 0 instead. The case's score is the share of valid messages."""

    criterion_type: ClassVar[type[LlmBackedUserSimulatorCriterion]] = (
        LlmBackedUserSimulatorCriterion
    )

    def __init__(self, eval_metric: EvalMetric) -> None:
        super().__init__(eval_metric)
        self._criterion = criterion_of(eval_metric, LlmBackedUserSimulatorCriterion)
        self._stop_signal = self._criterion.stop_signal
        self.judge = JudgeModel(self._criterion.judge_model_options, eval_metric.metric_name)

    @property
    def expected_invocations_required(self) -> bool:
        return False

    @property
    def conversation_scenario_required(self) -> bool:
        return True

    def score_invocation(
        self, actual: Invocation, expected: Invocation
    ) -> tuple[float, dict[str, Any]]:
        raise TypeError(f"{self.eval_metric.metric_name} is judged: await evaluate_invocations.")

    async def evaluate_invocations(
        self,
        actual_invocations: list[Invocation],
        expected_invocations: list[Invocation] | None = None,
        conversation_scenario: ConversationScenario | None = None,
    ) -> EvaluationResult:
        """ValueError without ``conversation_scenario`` (a fixed conversation)."""
        del expected_invocations  # the scenario is the reference
        if conversation_scenario is None:
            raise ValueError(
                f"Metric {self.eval_metric.metric_name!r} checks a simulated user against "
                "its conversation scenario: give one."
            )
        if not actual_invocations:
            return EvaluationResult()
        results = [self._first_turn(actual_invocations[0], conversation_scenario)]
        for index, invocation in enumerate(actual_invocations[1:], start=1):
            said = get_text_from_content(invocation.user_content) or ""
            results.append(
                await self._judge_turn(
                    invocation, said, actual_invocations[:index], conversation_scenario
                )
            )
        ending = await self._judge_turn(
            actual_invocations[-1], self._stop_signal, actual_invocations, conversation_scenario
        )
        if ending.eval_status is EvalStatus.FAILED:
            ending.details = {"stop_signal": "the conversation should not have ended here"} | (
                ending.details
            )
            results[-1] = ending
        passed = sum(r.score or 0.0 for r in results if r.eval_status is EvalStatus.PASSED)
        overall = passed / len(results)
        return EvaluationResult(overall, get_eval_status(overall, self.threshold), results)

    async def close(self) -> None:
        """Closes the judge model's client, if one was made."""
        await self.judge.close()

    def _first_turn(
        self, invocation: Invocation, scenario: ConversationScenario
    ) -> PerInvocationResult:
        said = get_text_from_content(invocation.user_content)
        if said is None:
            return PerInvocationResult(
                invocation, None, None, EvalStatus.NOT_EVALUATED, {"reason": "no user text"}
            )
        score = float(said.strip() == scenario.starting_prompt.strip())
        details = {} if score else {"reason": "the first message is not the starting prompt"}
        return PerInvocationResult(invocation, None, score, self.status(score), details)

    async def _judge_turn(
        self,
        invocation: Invocation,
        said: str,
        history: list[Invocation],
        scenario: ConversationScenario,
    ) -> PerInvocationResult:
        prompt = get_per_turn_user_simulator_quality_prompt(
            conversation_plan=scenario.conversation_plan,
            conversation_history=_history(history),
            generated_user_response=said,
            stop_signal=self._stop_signal,
            user_persona=scenario.user_persona,
        )
        options = self._criterion.judge_model_options
        semaphore = asyncio.Semaphore(options.parallelism_limit)

        async def sample() -> tuple[float | None, dict[str, Any]]:
            async with semaphore:
                answer = await self.judge.ask(self.judge.request(prompt))
            text = get_text_from_content(answer.content) or ""
            score, reasoning = parse_is_valid(text)
            if score is None:
                return None, {"reason": f"the judge's answer gives no verdict: {excerpt(text)!r}"}
            return score, {"reasoning": reasoning} if reasoning else {}

        try:
            samples = await asyncio.gather(*(sample() for _ in range(options.num_samples)))
        except Exception as error:  # the judge failed: this turn is not evaluated
            reason = {"reason": self.judge.failure(error)}
            return PerInvocationResult(invocation, None, None, EvalStatus.NOT_EVALUATED, reason)
        return self._majority(invocation, samples)

    def _majority(
        self, invocation: Invocation, samples: list[tuple[float | None, dict[str, Any]]]
    ) -> PerInvocationResult:
        valid = [s for s in samples if s[0] == 1.0]
        invalid = [s for s in samples if s[0] == 0.0]
        if not valid and not invalid:
            score, details = samples[0]
        else:
            score, details = valid[0] if len(valid) > len(invalid) else invalid[0]
        details = {} if score == 1.0 else dict(details)
        if len(samples) > 1:
            unread = len(samples) - len(valid) - len(invalid)
            details["votes"] = {"valid": len(valid), "invalid": len(invalid), "unread": unread}
        return PerInvocationResult(
            invocation, None, score, get_eval_status(score, self.threshold), details
        )
