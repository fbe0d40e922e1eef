"""Runs eval cases against an agent and scores them with the configured metrics."""

from __future__ import annotations

import copy
import inspect

from pyadk.agents.base_agent import BaseAgent
from pyadk.evaluation.app_details import AppDetailsRecorder
from pyadk.evaluation.eval_case import ConversationScenario, EvalCase, Invocation
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
from pyadk.evaluation.evaluator import EvaluationResult, Evaluator
from pyadk.evaluation.metric_registry import get_evaluator
from pyadk.evaluation.simulated_generation import generate_simulated_invocations
from pyadk.evaluation.simulation.user_simulator import BaseUserSimulatorConfig
from pyadk.evaluation.simulation.user_simulator_provider import UserSimulatorProvider
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
    user_simulator_config: BaseUserSimulatorConfig | None = None,
) -> list[EvalCaseResult]:
    """Runs every case ``num_runs`` times (each run on a new in-memory session) and
    scores it. Unknown metrics or missing extras fail before anything runs; an agent
    that raises fails its case (``error`` says why) and the others still run. The
    agent's toolsets (MCP connections, ...) are closed at the end unless
    ``close_toolsets`` is False (an agent a server keeps serving). A case's
    ``tool_fakes`` answer matching tool calls instead of the tools; with
    ``fake_recorded_tools``, so do the tool results recorded in its expected
    invocations.

    A case with a ``conversation_scenario`` is played by the user simulator
    ``user_simulator_config`` describes (google-adk's LLM-backed one by default); the
    metrics that compare with expected invocations are not evaluated for it. A
    simulator model no registry serves, or a metric that no case of the set can feed
    (a reference metric for a set of scenarios only, a simulation metric for a set
    without scenarios), fails before anything runs."""
    if num_runs < 1:
        raise ValueError(f"num_runs must be at least 1, got {num_runs}.")
    evaluators = [get_evaluator(metric) for metric in eval_metrics]
    provider = UserSimulatorProvider(user_simulator_config)
    results = []
    fakes, app_details = ToolFakesPlugin(), AppDetailsRecorder()
    runner = InMemoryRunner(agent, app_name=app_name or agent.name, plugins=[fakes, app_details])
    try:
        _check_simulation(eval_set, evaluators, provider)
        for run in range(1, num_runs + 1):
            for eval_case in eval_set.eval_cases:
                recorded = recorded_fakes(eval_case) if fake_recorded_tools else []
                fakes.use([*eval_case.tool_fakes, *recorded])
                result = await evaluate_eval_case(
                    runner, eval_case, evaluators, app_details, provider
                )
                result.eval_set_id, result.eval_set_file = eval_set.eval_set_id, eval_set_file
                result.run = run
                results.append(result)
    finally:
        for evaluator in evaluators:
            await evaluator.close()
        if close_toolsets:
            await runner.close()
    return results


def check_user_simulation(
    eval_set: EvalSet,
    eval_metrics: list[EvalMetric],
    user_simulator_config: BaseUserSimulatorConfig | None = None,
) -> None:
    """What :func:`evaluate_eval_set` checks before running: ValueError when the
    simulator of the set's scenario cases cannot be made (its model is not served), or
    a metric can score none of the set's cases."""
    evaluators = [get_evaluator(metric) for metric in eval_metrics]
    _check_simulation(eval_set, evaluators, UserSimulatorProvider(user_simulator_config))


def _check_simulation(
    eval_set: EvalSet, evaluators: list[Evaluator], provider: UserSimulatorProvider
) -> None:
    scenarios = [case for case in eval_set.eval_cases if case.conversation_scenario]
    if scenarios:
        provider.provide(scenarios[0])  # resolves the simulator's model (made on first use)
    if not eval_set.eval_cases:
        return
    set_id = eval_set.eval_set_id
    for evaluator in evaluators:
        name = evaluator.eval_metric.metric_name
        if len(scenarios) == len(eval_set.eval_cases) and evaluator.expected_invocations_required:
            raise ValueError(
                f"Metric {name!r} compares with an expected conversation, and every eval "
                f"case of {set_id!r} is a conversation scenario (simulated, without one): "
                "use metrics that need no reference (rubric_based_final_response_quality_v1, "
                "rubric_based_tool_use_quality_v1, hallucinations_v1, "
                "per_turn_user_simulator_quality_v1)."
            )
        if not scenarios and evaluator.conversation_scenario_required:
            raise ValueError(
                f"Metric {name!r} checks a simulated user, and no eval case of {set_id!r} "
                "has a conversation scenario."
            )


async def evaluate_eval_case(
    runner: Runner,
    eval_case: EvalCase,
    evaluators: list[Evaluator],
    app_details: AppDetailsRecorder | None = None,
    user_simulator_provider: UserSimulatorProvider | None = None,
) -> EvalCaseResult:
    """One run of ``eval_case`` on a new session of ``runner``, scored; with
    ``app_details`` (a plugin of ``runner``) each actual invocation records the
    instructions and tool declarations its agents were sent. A scenario case is
    played by ``user_simulator_provider``'s simulator (the default one without)."""
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
    scenario = eval_case.conversation_scenario
    if scenario is None and not eval_case.conversation:
        result.final_eval_status = EvalStatus.FAILED
        result.error = "the eval case has no conversation"
        return result
    try:
        if scenario is None:
            actual = await generate_invocations(
                runner, eval_case, user_id=user_id, session_id=session.id, app_details=app_details
            )
        else:
            simulator = (user_simulator_provider or UserSimulatorProvider()).provide(eval_case)
            try:
                actual, _ = await generate_simulated_invocations(
                    runner,
                    simulator,
                    user_id=user_id,
                    session_id=session.id,
                    app_details=app_details,
                )
            finally:
                await simulator.close()
    except Exception as error:  # the agent failed: this case fails, the run goes on
        result.final_eval_status = EvalStatus.FAILED
        result.error = f"{type(error).__name__}: {error}"
        return result
    _add_rubrics(eval_case, actual)
    expected = eval_case.conversation if scenario is None else None
    await _score(result, actual, expected, scenario, evaluators)
    return result


def _add_rubrics(eval_case: EvalCase, actual: list[Invocation]) -> None:
    """Gives each actual invocation the rubrics of its case and of its expected
    invocation (google-adk's rubric sources), for the rubric-based metrics."""
    expected: list[Invocation | None] = list(eval_case.conversation) or [None] * len(actual)
    for invocation, reference in zip(actual, expected, strict=True):
        rubrics = [*(eval_case.rubrics or ()), *((reference.rubrics if reference else None) or ())]
        if rubrics:
            invocation.rubrics = [*(invocation.rubrics or ()), *rubrics]


def _unfit(evaluator: Evaluator, scenario: ConversationScenario | None) -> str | None:
    """Why the metric cannot score this case, if it cannot."""
    name = evaluator.eval_metric.metric_name
    if scenario is not None and evaluator.expected_invocations_required:
        return f"{name} compares with an expected conversation; this case is simulated"
    if scenario is None and evaluator.conversation_scenario_required:
        return f"{name} checks a simulated user; this case has a fixed conversation"
    return None


def _evaluate(
    evaluator: Evaluator,
    actual: list[Invocation],
    expected: list[Invocation] | None,
    scenario: ConversationScenario | None,
) -> object:
    if scenario is None:
        return evaluator.evaluate_invocations(actual, expected)
    parameters = inspect.signature(evaluator.evaluate_invocations).parameters
    takes_scenario = "conversation_scenario" in parameters or any(
        p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()
    )
    if takes_scenario:
        return evaluator.evaluate_invocations(actual, None, conversation_scenario=scenario)
    return evaluator.evaluate_invocations(actual, None)


async def _score(
    result: EvalCaseResult,
    actual: list[Invocation],
    expected: list[Invocation] | None,
    scenario: ConversationScenario | None,
    evaluators: list[Evaluator],
) -> None:
    references: list[Invocation | None] = list(expected) if expected else [None] * len(actual)
    per_invocation = [
        EvalMetricResultPerInvocation(actual_invocation=a, expected_invocation=e)
        for a, e in zip(actual, references, strict=True)
    ]
    for evaluator in evaluators:
        metric = evaluator.eval_metric
        reason = _unfit(evaluator, scenario)
        if reason is not None:
            unscored = _metric_result(metric, None, EvalStatus.NOT_EVALUATED, {"reason": reason})
            result.overall_eval_metric_results.append(unscored)
            for row in per_invocation:
                row.eval_metric_results.append(unscored.model_copy())
            continue
        evaluated = _evaluate(evaluator, actual, expected, scenario)
        outcome = await evaluated if inspect.isawaitable(evaluated) else evaluated
        assert isinstance(outcome, EvaluationResult)
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
