"""Runs eval cases against an agent and scores them with the configured metrics."""

from __future__ import annotations

import copy
import inspect

from pyadk.agents.base_agent import BaseAgent
from pyadk.evaluation.app_details import AppDetailsRecorder
from pyadk.evaluation.eval_case import EvalCase, Invocation
from pyadk.evaluation.eval_metrics import (
    EvalMetric,
    EvalMetricResult,
    EvalMetricResultPerInvocation,
    EvalStatus,
)
from pyadk.evaluation.eval_result import EvalCaseResult
from pyadk.evaluation.eval_rubrics import RubricScore
from pyadk.evaluation.eval_set import EvalSet
from pyadk.evaluation.evaluation_generator import DEFAULT_USER_ID, generate_invocations
from pyadk.evaluation.evaluator import Evaluator
from pyadk.evaluation.metric_registry import get_evaluator
from pyadk.evaluation.tool_fakes import ToolFakesPlugin, recorded_fakes
from pyadk.runners import InMemoryRunner, Runner


async def evaluate_eval_set(
    agent: BaseAgent,
    eval_set: EvalSet,
    eval_metrics: list[EvalMetric],
    *,
    app_name: str | None = None,
    num_runs: int = 1,
    eval_set_file: str | None = None,
    close_toolsets: bool = True,
    fake_recorded_tools: bool = False,
) -> list[EvalCaseResult]:
    """Runs every case ``num_runs`` times (each run on a new in-memory session) and
    scores it. Unknown metrics or missing extras fail before anything runs; an agent
    that raises fails its case (``error`` says why) and the others still run. The
    agent's toolsets (MCP connections, ...) are closed at the end unless
    ``close_toolsets`` is False (an agent a server keeps serving). A case's
    ``tool_fakes`` answer matching tool calls instead of the tools; with
    ``fake_recorded_tools``, so do the tool results recorded in its expected
    invocations."""
    if num_runs < 1:
        raise ValueError(f"num_runs must be at least 1, got {num_runs}.")
    evaluators = [get_evaluator(metric) for metric in eval_metrics]
    results = []
    fakes, app_details = ToolFakesPlugin(), AppDetailsRecorder()
    runner = InMemoryRunner(agent, app_name=app_name or agent.name, plugins=[fakes, app_details])
    try:
        for run in range(1, num_runs + 1):
            for eval_case in eval_set.eval_cases:
                recorded = recorded_fakes(eval_case) if fake_recorded_tools else []
                fakes.use([*eval_case.tool_fakes, *recorded])
                result = await evaluate_eval_case(runner, eval_case, evaluators, app_details)
                result.eval_set_id, result.eval_set_file = eval_set.eval_set_id, eval_set_file
                result.run = run
                results.append(result)
    finally:
        for evaluator in evaluators:
            await evaluator.close()
        if close_toolsets:
            await runner.close()
    return results


async def evaluate_eval_case(
    runner: Runner,
    eval_case: EvalCase,
    evaluators: list[Evaluator],
    app_details: AppDetailsRecorder | None = None,
) -> EvalCaseResult:
    """One run of ``eval_case`` on a new session of ``runner``, scored; with
    ``app_details`` (a plugin of ``runner``) each actual invocation records the
    instructions and tool declarations its agents were sent."""
    session_input = eval_case.session_input
    user_id = session_input.user_id if session_input else DEFAULT_USER_ID
    state = copy.deepcopy(session_input.state) if session_input else {}
    session = await runner.session_service.create_session(
        app_name=runner.app_name, user_id=user_id, state=state
    )
    result = EvalCaseResult(
        eval_id=eval_case.eval_id,
        final_eval_status=EvalStatus.NOT_EVALUATED,
        session_id=session.id,
        user_id=user_id,
    )
    if not eval_case.conversation:
        result.final_eval_status = EvalStatus.FAILED
        extra = eval_case.model_extra or {}
        scenario = extra.get("conversation_scenario") or extra.get("conversationScenario")
        result.error = (
            "a conversation scenario (user simulation) is not supported by pyadk"
            if scenario
            else "the eval case has no conversation"
        )
        return result
    try:
        actual = await generate_invocations(
            runner, eval_case, user_id=user_id, session_id=session.id, app_details=app_details
        )
    except Exception as error:  # the agent failed: this case fails, the run goes on
        result.final_eval_status = EvalStatus.FAILED
        result.error = f"{type(error).__name__}: {error}"
        return result
    _add_rubrics(eval_case, actual)
    await _score(result, actual, eval_case.conversation, evaluators)
    return result


def _add_rubrics(eval_case: EvalCase, actual: list[Invocation]) -> None:
    """Gives each actual invocation the rubrics of its case and of its expected
    invocation (google-adk's rubric sources), for the rubric-based metrics."""
    for invocation, expected in zip(actual, eval_case.conversation, strict=True):
        rubrics = [*(eval_case.rubrics or ()), *(expected.rubrics or ())]
        if rubrics:
            invocation.rubrics = [*(invocation.rubrics or ()), *rubrics]


async def _score(
    result: EvalCaseResult,
    actual: list[Invocation],
    expected: list[Invocation],
    evaluators: list[Evaluator],
) -> None:
    per_invocation = [
        EvalMetricResultPerInvocation(actual_invocation=a, expected_invocation=e)
        for a, e in zip(actual, expected, strict=True)
    ]
    for evaluator in evaluators:
        metric = evaluator.eval_metric
        evaluated = evaluator.evaluate_invocations(actual, expected)
        outcome = await evaluated if inspect.isawaitable(evaluated) else evaluated
        result.overall_eval_metric_results.append(
            _metric_result(
                metric,
                outcome.overall_score,
                outcome.overall_eval_status,
                _with_rubric_scores({}, outcome.overall_rubric_scores),
            )
        )
        for row, verdict in zip(per_invocation, outcome.per_invocation_results, strict=True):
            details = _with_rubric_scores(verdict.details, verdict.rubric_scores)
            row.eval_metric_results.append(
                _metric_result(metric, verdict.score, verdict.eval_status, details)
            )
    result.eval_metric_result_per_invocation = per_invocation
    statuses = {r.eval_status for r in result.overall_eval_metric_results}
    if EvalStatus.FAILED in statuses:
        result.final_eval_status = EvalStatus.FAILED
    elif EvalStatus.PASSED in statuses:
        result.final_eval_status = EvalStatus.PASSED


def _with_rubric_scores(
    details: dict[str, object], rubric_scores: list[RubricScore] | None
) -> dict[str, object]:
    """``details`` plus ``rubric_scores`` as google-adk's result files hold them."""
    if rubric_scores is None:
        return details
    scores = [score.model_dump(mode="json", exclude_none=True) for score in rubric_scores]
    return {**details, "rubric_scores": scores}


def _metric_result(
    metric: EvalMetric,
    score: float | None,
    status: EvalStatus,
    details: dict[str, object] | None = None,
) -> EvalMetricResult:
    return EvalMetricResult(
        metric_name=metric.metric_name,
        threshold=metric.threshold,
        criterion=metric.criterion,
        score=score,
        eval_status=status,
        details=details or {},
    )
