"""Routes: eval sets, eval cases, eval runs and their results (google-adk's eval routes).

Every route is served under ``/apps/...`` (google-adk 1.x) and ``/dev/apps/...``
(google-adk 2.x), in both spellings google-adk has: the older snake_case paths that
answer bare lists (``eval_sets``, ``evals``, ``run_eval``, ``eval_results``) and the
newer kebab-case paths that answer objects (``eval-sets``, ``eval-cases``, ``run``,
``eval-results``, ``metrics-info``). Eval sets are files of the agents directory
(:class:`LocalEvalSetsManager`), run results go to ``<app>/.adk/eval_history/``.

Eval sets hold conversations of any user and running one runs the agent, so when tokens
are bound to users these routes need a token for any user (403 otherwise).

``pyadk.evaluation`` is imported on the first eval request: a server that never runs an
eval does not pay for it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from pyadk.server.context import ServerContext
from pyadk.server.json_safe import model_json
from pyadk.server.security import require_any_user

if TYPE_CHECKING:
    from pyadk.evaluation.eval_case import EvalCase
    from pyadk.evaluation.eval_metrics import EvalMetric
    from pyadk.evaluation.eval_result import EvalCaseResult
    from pyadk.evaluation.eval_set import EvalSet
    from pyadk.evaluation.local_eval_set_results_manager import LocalEvalSetResultsManager
    from pyadk.evaluation.local_eval_sets_manager import LocalEvalSetsManager
    from pyadk.evaluation.simulation.user_simulator import BaseUserSimulatorConfig

logger = logging.getLogger(__name__)

PREFIXES = ("/apps", "/dev/apps")
"""google-adk 1.x serves its eval routes under ``/apps``, 2.x under ``/dev/apps``."""

METRIC_DESCRIPTIONS = {
    "tool_trajectory_avg_score": (
        "Whether the agent made the expected tool calls, by name and arguments (in the "
        "same order unless the criterion's matchType says otherwise): 1 or 0 per "
        "invocation, averaged."
    ),
    "response_match_score": (
        "How close the final response is to the expected one: the ROUGE-1 F-measure of "
        "their words, from 0 to 1, computed locally."
    ),
    "final_response_match_v2": (
        "Whether a judge model finds the final response valid against the expected one "
        "(majority of its samples): the share of valid invocations, from 0 to 1."
    ),
    "rubric_based_final_response_quality_v1": (
        "How many of the rubrics a judge model finds the final response meets: the mean "
        "of the rubric verdicts, from 0 to 1."
    ),
    "rubric_based_tool_use_quality_v1": (
        "How many of the rubrics a judge model finds the tool calls meet: the mean of the "
        "rubric verdicts, from 0 to 1."
    ),
    "hallucinations_v1": (
        "The share of the response's sentences a judge model finds supported by the "
        "instructions, tools and context, from 0 to 1."
    ),
    "per_turn_user_simulator_quality_v1": (
        "The share of a simulated user's messages that keep to its conversation scenario "
        "(the first is the starting prompt, a judge model checks the others and the "
        "ending), from 0 to 1."
    ),
}


class _Body(BaseModel):
    # Unknown fields are ignored, as google-adk does: newer ADK clients send more.
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="ignore")


class NewEvalSet(_Body):
    """What ``POST .../eval-sets`` reads of the eval set it is given: its id."""

    eval_set_id: str


class CreateEvalSetRequest(_Body):
    """Body of ``POST .../eval-sets``: ``{"evalSet": {"evalSetId": "..."}}``."""

    eval_set: NewEvalSet


class AddSessionRequest(_Body):
    """Body of ``POST .../add_session``: the stored session to turn into an eval case."""

    eval_id: str = Field(min_length=1)
    session_id: str = Field(min_length=1)
    user_id: str = Field(min_length=1)


class RunEvalRequest(_Body):
    """Body of ``POST .../run_eval`` and ``.../run``."""

    eval_ids: list[str] = Field(default_factory=list)
    """The cases to run (google-adk 1.x's name); empty: all."""
    eval_case_ids: list[str] = Field(default_factory=list)
    """The cases to run (google-adk 2.x's name); empty: all."""
    eval_metrics: list[dict[str, Any]] = Field(default_factory=list)
    """EvalMetric JSON (camelCase or snake_case); empty: the default criteria."""
    live_model_config: dict[str, Any] | None = None
    user_simulator_config: dict[str, Any] | None = None
    """How the set's conversation-scenario cases are simulated (by ``type``; none: the
    LLM-backed simulator's defaults)."""


def make_router(ctx: ServerContext) -> APIRouter:
    router = APIRouter()

    def add(method: str, paths: tuple[str, ...], endpoint: Callable[..., Any]) -> None:
        for prefix in PREFIXES:
            for path in paths:
                # "eval-sets" and "eval_sets" make the same OpenAPI operation id: name them
                name = endpoint.__name__ + ("_kebab" if "-" in path else "")
                router.add_api_route(prefix + path, endpoint, methods=[method], name=name)

    def sets_manager(request: Request, app_name: str) -> LocalEvalSetsManager:
        from pyadk.evaluation.local_eval_sets_manager import LocalEvalSetsManager

        # Eval sets hold every user's conversations.
        require_any_user(request, "the eval routes")
        ctx.require_app(app_name)
        return LocalEvalSetsManager(_agents_dir(ctx))

    # ---- eval sets

    async def create_eval_set_by_path(app_name: str, eval_set_id: str, request: Request) -> Any:
        """Creates an empty eval set; 400 if it exists or the id is not ``[A-Za-z0-9_]+``."""
        return _create(sets_manager(request, app_name), app_name, eval_set_id)

    async def create_eval_set(
        app_name: str, body: CreateEvalSetRequest, request: Request
    ) -> JSONResponse:
        """Creates an empty eval set from ``{"evalSet": {"evalSetId": ...}}`` (other
        fields of the eval set are ignored, as google-adk does)."""
        return _create(sets_manager(request, app_name), app_name, body.eval_set.eval_set_id)

    async def list_eval_sets_bare(app_name: str, request: Request) -> list[str]:
        return sets_manager(request, app_name).list_eval_sets(app_name)

    async def list_eval_sets(app_name: str, request: Request) -> dict[str, list[str]]:
        return {"evalSetIds": sets_manager(request, app_name).list_eval_sets(app_name)}

    async def get_eval_set(app_name: str, eval_set_id: str, request: Request) -> JSONResponse:
        eval_set = _load_set(sets_manager(request, app_name), app_name, eval_set_id)
        return JSONResponse(model_json(eval_set, exclude_none=True))

    async def delete_eval_set(app_name: str, eval_set_id: str, request: Request) -> None:
        manager = sets_manager(request, app_name)
        _load_set(manager, app_name, eval_set_id)
        _edit(lambda: manager.delete_eval_set(app_name, eval_set_id))

    add("POST", ("/{app_name}/eval_sets/{eval_set_id}",), create_eval_set_by_path)
    add("POST", ("/{app_name}/eval-sets",), create_eval_set)
    add("GET", ("/{app_name}/eval_sets",), list_eval_sets_bare)
    add("GET", ("/{app_name}/eval-sets",), list_eval_sets)
    one_set = ("/{app_name}/eval_sets/{eval_set_id}", "/{app_name}/eval-sets/{eval_set_id}")
    add("GET", one_set, get_eval_set)
    add("DELETE", one_set, delete_eval_set)

    # ---- eval cases

    async def add_session(
        app_name: str, eval_set_id: str, body: AddSessionRequest, request: Request
    ) -> JSONResponse:
        """Turns a stored session into the eval case ``evalId``: 404 for a missing set or
        session, 400 if the set has a case of that id."""
        from pyadk.evaluation.local_eval_sets_manager import EvalNotFoundError
        from pyadk.evaluation.session_to_eval_case import session_to_eval_case

        manager = sets_manager(request, app_name)
        _load_set(manager, app_name, eval_set_id)
        session = await ctx.session(app_name, body.user_id, body.session_id)
        eval_case = session_to_eval_case(session, body.eval_id)
        try:
            manager.add_eval_case(app_name, eval_set_id, eval_case)
        except EvalNotFoundError as exc:  # deleted meanwhile
            raise HTTPException(status_code=404, detail=str(exc)) from exc
        except ValueError as exc:
            raise HTTPException(status_code=400, detail=str(exc)) from exc
        return JSONResponse(model_json(eval_case, exclude_none=True))

    async def list_evals(app_name: str, eval_set_id: str, request: Request) -> list[str]:
        eval_set = _load_set(sets_manager(request, app_name), app_name, eval_set_id)
        return sorted(case.eval_id for case in eval_set.eval_cases)

    async def get_eval(
        app_name: str, eval_set_id: str, eval_case_id: str, request: Request
    ) -> JSONResponse:
        eval_set = _load_set(sets_manager(request, app_name), app_name, eval_set_id)
        return JSONResponse(model_json(_case(eval_set, eval_case_id), exclude_none=True))

    async def update_eval(
        app_name: str, eval_set_id: str, eval_case_id: str, body: dict[str, Any], request: Request
    ) -> JSONResponse:
        """Replaces the case with the EvalCase JSON of the body, whose ``evalId`` (if
        given) must be the one of the path (400 otherwise)."""
        from pyadk.evaluation.eval_case import EvalCase

        manager = sets_manager(request, app_name)
        _case(_load_set(manager, app_name, eval_set_id), eval_case_id)  # 404s first
        given = body.get("evalId", body.get("eval_id"))
        if given and given != eval_case_id:
            raise HTTPException(
                status_code=400,
                detail=f"The evalId of the body ({given!r}) is not the one of the path "
                f"({eval_case_id!r}).",
            )
        data = {k: v for k, v in body.items() if k not in ("evalId", "eval_id")}
        eval_case = EvalCase.model_validate({**data, "evalId": eval_case_id})  # 422 if bad
        _edit(lambda: manager.update_eval_case(app_name, eval_set_id, eval_case))
        return JSONResponse(model_json(eval_case, exclude_none=True))

    async def delete_eval(
        app_name: str, eval_set_id: str, eval_case_id: str, request: Request
    ) -> None:
        manager = sets_manager(request, app_name)
        _edit(lambda: manager.delete_eval_case(app_name, eval_set_id, eval_case_id))

    add(
        "POST",
        (
            "/{app_name}/eval_sets/{eval_set_id}/add_session",
            "/{app_name}/eval-sets/{eval_set_id}/add-session",
        ),
        add_session,
    )
    add("GET", ("/{app_name}/eval_sets/{eval_set_id}/evals",), list_evals)
    one_case = (
        "/{app_name}/eval_sets/{eval_set_id}/evals/{eval_case_id}",
        "/{app_name}/eval-sets/{eval_set_id}/eval-cases/{eval_case_id}",
    )
    add("GET", one_case, get_eval)
    add("PUT", one_case, update_eval)
    add("DELETE", one_case, delete_eval)

    # ---- runs and results

    async def run(
        app_name: str, eval_set_id: str, body: RunEvalRequest, request: Request
    ) -> tuple[str, list[dict[str, Any]]]:
        from pyadk.evaluation.eval_runner import check_user_simulation, evaluate_eval_set
        from pyadk.evaluation.local_eval_set_results_manager import LocalEvalSetResultsManager

        manager = sets_manager(request, app_name)
        eval_set = _load_set(manager, app_name, eval_set_id)
        if body.live_model_config is not None:
            raise HTTPException(
                status_code=400, detail="liveModelConfig is not supported by pyadk."
            )
        try:
            selected = eval_set.select(body.eval_case_ids or body.eval_ids)
        except ValueError as exc:
            raise HTTPException(status_code=400, detail=str(exc)) from exc
        metrics = _metrics(body.eval_metrics)
        simulator = _simulator_config(body.user_simulator_config)
        try:
            check_user_simulation(selected, metrics, simulator)
        except ValueError as exc:
            raise HTTPException(status_code=400, detail=str(exc)) from exc
        agent = ctx.agent(app_name)
        try:
            results = await evaluate_eval_set(
                agent,
                selected,
                metrics,
                app_name=app_name,
                eval_set_file=eval_set_id,
                close_toolsets=False,  # the server keeps serving this agent
                user_simulator_config=simulator,
            )
        except Exception as exc:
            logger.exception("Eval run failed (app %r, eval set %r)", app_name, eval_set_id)
            raise HTTPException(
                status_code=500, detail=f"Eval run failed: {type(exc).__name__}: {exc}"
            ) from exc
        saved = LocalEvalSetResultsManager(_agents_dir(ctx)).save_eval_set_result(
            app_name, eval_set_id, [_json_safe(r) for r in results]
        )
        return saved.eval_set_result_id, [_run_eval_result(r, eval_set_id) for r in results]

    async def run_eval_bare(
        app_name: str, eval_set_id: str, body: RunEvalRequest, request: Request
    ) -> list[dict[str, Any]]:
        """Runs the cases (all when ``evalIds`` is empty) with ``evalMetrics`` (the default
        criteria when empty), keeps the results in the history and returns one
        RunEvalResult per case."""
        _, results = await run(app_name, eval_set_id, body, request)
        return results

    async def run_eval(
        app_name: str, eval_set_id: str, body: RunEvalRequest, request: Request
    ) -> dict[str, Any]:
        """As ``run_eval``: ``{"runEvalResults": [...], "evalSetResultId": ...}``."""
        result_id, results = await run(app_name, eval_set_id, body, request)
        return {"runEvalResults": results, "evalSetResultId": result_id}

    def results_manager(request: Request, app_name: str) -> LocalEvalSetResultsManager:
        from pyadk.evaluation.local_eval_set_results_manager import LocalEvalSetResultsManager

        # Eval sets hold every user's conversations.
        require_any_user(request, "the eval routes")
        ctx.require_app(app_name)
        return LocalEvalSetResultsManager(_agents_dir(ctx))

    async def get_eval_result(app_name: str, eval_result_id: str, request: Request) -> Any:
        from pydantic import ValidationError

        manager = results_manager(request, app_name)
        try:
            result = manager.get_eval_set_result(app_name, eval_result_id)
        except KeyError as exc:
            detail = f"Eval result {eval_result_id!r} not found for app {app_name!r}."
            raise HTTPException(status_code=404, detail=detail) from exc
        except (ValueError, ValidationError) as exc:
            raise HTTPException(
                status_code=500, detail=f"Eval result {eval_result_id!r} is unreadable: {exc}"
            ) from exc
        return JSONResponse(model_json(result, exclude_none=True))

    async def list_eval_results_bare(app_name: str, request: Request) -> list[str]:
        return results_manager(request, app_name).list_eval_set_results(app_name)

    async def list_eval_results(app_name: str, request: Request) -> dict[str, list[str]]:
        return {"evalResultIds": await list_eval_results_bare(app_name, request)}

    async def metrics_info(app_name: str, request: Request) -> dict[str, Any]:
        """The metrics run_eval knows, with what their scores mean."""
        from pyadk.evaluation.metric_registry import registered_metrics

        # Eval sets hold every user's conversations.
        require_any_user(request, "the eval routes")
        ctx.require_app(app_name)
        interval = {"minValue": 0.0, "openAtMin": False, "maxValue": 1.0, "openAtMax": False}
        info = []
        for name in registered_metrics():
            entry: dict[str, Any] = {"metricName": name}
            if name in METRIC_DESCRIPTIONS:
                entry["description"] = METRIC_DESCRIPTIONS[name]
            entry["metricValueInfo"] = {"interval": interval}
            entry["requiresThreshold"] = True
            info.append(entry)
        return {"metricsInfo": info}

    add("POST", ("/{app_name}/eval_sets/{eval_set_id}/run_eval",), run_eval_bare)
    add("POST", ("/{app_name}/eval-sets/{eval_set_id}/run",), run_eval)
    add("GET", ("/{app_name}/eval_results/{eval_result_id}",), get_eval_result)
    add("GET", ("/{app_name}/eval-results/{eval_result_id}",), get_eval_result)
    add("GET", ("/{app_name}/eval_results",), list_eval_results_bare)
    add("GET", ("/{app_name}/eval-results",), list_eval_results)
    add("GET", ("/{app_name}/metrics-info",), metrics_info)
    return router


def _agents_dir(ctx: ServerContext) -> Path:
    if ctx.loader is None:
        raise HTTPException(
            status_code=501,
            detail="Eval sets are kept in the agents directory, and this server has none: "
            "start it with one (create_app(agents_dir=...)).",
        )
    return ctx.loader.agents_dir


def _create(manager: LocalEvalSetsManager, app_name: str, eval_set_id: str) -> JSONResponse:
    try:
        eval_set = manager.create_eval_set(app_name, eval_set_id)
    except ValueError as exc:
        raise HTTPException(status_code=400, detail=str(exc)) from exc
    return JSONResponse(model_json(eval_set, exclude_none=True))


def _load_set(manager: LocalEvalSetsManager, app_name: str, eval_set_id: str) -> EvalSet:
    """The eval set, 404 if missing, 500 if its file cannot be read."""
    try:
        eval_set = manager.get_eval_set(app_name, eval_set_id)
    except ValueError as exc:  # the file is there but is not an eval set
        raise HTTPException(status_code=500, detail=str(exc)) from exc
    if eval_set is None:
        raise HTTPException(
            status_code=404, detail=f"Eval set {eval_set_id!r} not found for app {app_name!r}."
        )
    return eval_set


def _case(eval_set: EvalSet, eval_case_id: str) -> EvalCase:
    for case in eval_set.eval_cases:
        if case.eval_id == eval_case_id:
            return case
    raise HTTPException(
        status_code=404,
        detail=f"Eval case {eval_case_id!r} not found in eval set {eval_set.eval_set_id!r}.",
    )


def _edit(change: Callable[[], None]) -> None:
    from pyadk.evaluation.local_eval_sets_manager import EvalNotFoundError

    try:
        change()
    except EvalNotFoundError as exc:
        raise HTTPException(status_code=404, detail=str(exc)) from exc


def _metrics(given: list[dict[str, Any]]) -> list[EvalMetric]:
    """The metrics of a run request, or the default criteria; 400 for a metric that
    cannot be computed (unknown name, no threshold, a missing extra)."""
    from pydantic import TypeAdapter

    from pyadk.evaluation.eval_config import EvalConfig, get_eval_metrics_from_config
    from pyadk.evaluation.eval_metrics import EvalMetric
    from pyadk.evaluation.metric_registry import get_evaluator

    if given:
        metrics = TypeAdapter(list[EvalMetric]).validate_python(given)  # 422 if malformed
    else:
        metrics = get_eval_metrics_from_config(EvalConfig())
    for metric in metrics:
        try:
            get_evaluator(metric)
        except (ValueError, ImportError) as exc:
            raise HTTPException(status_code=400, detail=str(exc)) from exc
    return metrics


def _simulator_config(given: dict[str, Any] | None) -> BaseUserSimulatorConfig | None:
    """The run request's user simulator config; 400 when it cannot be used."""
    from pydantic import ValidationError

    from pyadk.evaluation.simulation.user_simulator import parse_user_simulator_config

    if given is None:
        return None
    try:
        return parse_user_simulator_config(given)
    except (ValueError, ValidationError) as exc:
        raise HTTPException(status_code=400, detail=f"userSimulatorConfig: {exc}") from exc


def _json_safe(result: EvalCaseResult) -> EvalCaseResult:
    """``result`` with any value JSON cannot hold (an object a tool returned) as its
    ``repr``, so the history file can be written."""
    return type(result).model_validate(model_json(result, exclude_none=True))


def _run_eval_result(result: EvalCaseResult, eval_set_id: str) -> dict[str, Any]:
    """google-adk's RunEvalResult JSON for one case result (plus ``error`` when the agent
    failed, a pyadk addition)."""
    data = model_json(result, exclude_none=True)
    overall = data.get("overallEvalMetricResults", [])
    pairs = [
        [{k: m[k] for k in ("metricName", "threshold", "criterion") if k in m}, m] for m in overall
    ]
    out: dict[str, Any] = {
        "evalSetFile": result.eval_set_file or eval_set_id,
        "evalSetId": eval_set_id,
        "evalId": result.eval_id,
        "finalEvalStatus": data["finalEvalStatus"],
        "evalMetricResults": pairs,
        "overallEvalMetricResults": overall,
        "evalMetricResultPerInvocation": data.get("evalMetricResultPerInvocation", []),
        "userId": result.user_id or "",
        "sessionId": result.session_id,
    }
    if result.error is not None:
        out["error"] = result.error
    return out
