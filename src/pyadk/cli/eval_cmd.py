"""`pyadk eval AGENT_DIR EVAL_SET_FILE[:id1,id2] ...`: score an agent against eval sets.

google-adk's ``adk eval``, with one deliberate difference: the exit status is 1 when
any case failed (``adk eval`` exits 0), so the command can gate a CI job.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path

import click
from pydantic import ValidationError
from rich.console import Console

from pyadk.agents.base_agent import BaseAgent
from pyadk.cli.agent_loading import load_agent
from pyadk.cli.errors import CliError
from pyadk.cli.eval_render import print_counts, print_details, print_summary
from pyadk.cli.render import make_console
from pyadk.evaluation import (
    EvalCaseResult,
    EvalConfig,
    EvalConfigError,
    EvalMetric,
    EvalSet,
    EvalSetFileError,
    EvalStatus,
    LocalEvalSetResultsManager,
    MissingEvalExtraError,
    check_user_simulation,
    evaluate_eval_set,
    find_config_for_test_file,
    get_eval_metrics_from_config,
    get_evaluator,
    load_eval_config,
    load_eval_set,
    summarize,
)
from pyadk.evaluation.eval_config import CONFIG_FILE_NAME
from pyadk.evaluation.simulation.user_simulator import BaseUserSimulatorConfig

_HINT = "EVAL_SET_FILE"


@dataclass
class EvalJob:
    """One EVAL_SET_FILE argument: the (selected) eval set and the metrics to compute."""

    path: Path
    eval_set: EvalSet
    metrics: list[EvalMetric]
    user_simulator_config: BaseUserSimulatorConfig | None = None
    """How the set's conversation-scenario cases are simulated (the config's)."""


def one_line(error: Exception) -> str:
    """The error's message on one line; pydantic's multi-line report becomes
    ``where: what; ...`` after the message's own beginning."""
    message = str(error)
    cause = error.__cause__
    if isinstance(cause, ValidationError):
        start = next((message.find(t) for t in (str(cause), repr(cause)) if t in message), -1)
        if start > 0:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in e['loc']) or 'top level'}: {e['msg']}"
                for e in cause.errors()
            )
            return f"{message[:start].rstrip(': ')}: {problems}"
    return " ".join(line.strip() for line in message.splitlines() if line.strip())


def split_eval_set_arg(spec: str) -> tuple[Path, list[str]]:
    """``FILE`` or ``FILE:id1,id2``: split on the last colon only when what precedes it is
    an existing file (so paths that contain colons still work)."""
    if Path(spec).is_file():
        return Path(spec), []
    head, colon, ids = spec.rpartition(":")
    if colon and head and Path(head).is_file():
        selected = [eval_id.strip() for eval_id in ids.split(",") if eval_id.strip()]
        if not selected:
            raise click.BadParameter(f"{spec!r} names no eval ids after ':'.", param_hint=_HINT)
        return Path(head), selected
    raise click.BadParameter(f"eval set file not found: {spec}", param_hint=_HINT)


def prepare_job(spec: str, config: tuple[EvalConfig, Path] | None) -> EvalJob:
    """Reads one eval set file, selects its cases, and checks its metrics can be computed."""
    path, eval_ids = split_eval_set_arg(spec)
    try:
        eval_set = _read_eval_set(path)
        eval_config, config_path = config or (
            find_config_for_test_file(path),
            path.parent / CONFIG_FILE_NAME,
        )
        metrics = get_eval_metrics_from_config(eval_config)
    except (EvalSetFileError, EvalConfigError) as error:
        raise CliError(one_line(error)) from error
    for metric in metrics:
        try:
            get_evaluator(metric)  # unknown metrics and missing extras fail before any run
        except MissingEvalExtraError as error:
            raise CliError(str(error)) from error
        except ValueError as error:
            source = config_path if config_path.is_file() else "the default criteria"
            raise CliError(f"{source}: {one_line(error)}") from error
    try:
        eval_set = eval_set.select(eval_ids)
    except ValueError as error:
        raise click.BadParameter(f"{path}: {error}", param_hint=_HINT) from error
    simulator = eval_config.user_simulator_config
    try:
        check_user_simulation(eval_set, metrics, simulator)  # before any case runs
    except ValueError as error:
        raise CliError(f"{path}: {one_line(error)}") from error
    return EvalJob(path, eval_set, metrics, simulator)


def _read_eval_set(path: Path) -> EvalSet:
    try:
        return load_eval_set(path)
    except AttributeError as error:  # an older-format list whose items are not objects
        raise CliError(f"Invalid eval data in {path}: each item must be an object") from error


async def run_jobs(
    agent: BaseAgent,
    app_name: str,
    jobs: list[EvalJob],
    num_runs: int,
    fake_recorded_tools: bool = False,
) -> list[list[EvalCaseResult]]:
    """The results of each job, in order (one event loop for all of them)."""
    return [
        await evaluate_eval_set(
            agent,
            job.eval_set,
            job.metrics,
            app_name=app_name,
            num_runs=num_runs,
            eval_set_file=str(job.path),
            close_toolsets=job is jobs[-1],  # the agent's MCP connections etc., once
            fake_recorded_tools=fake_recorded_tools,
            user_simulator_config=job.user_simulator_config,
        )
        for job in jobs
    ]


def save_history(
    console: Console,
    agent_dir: Path,
    app_name: str,
    jobs: list[EvalJob],
    results: list[list[EvalCaseResult]],
) -> None:
    """One result file per eval set under ``AGENT_DIR/.adk/eval_history/``."""
    manager = LocalEvalSetResultsManager(agent_dir.expanduser().resolve().parent)
    console.print()
    for job, job_results in zip(jobs, results, strict=True):
        set_id = job.eval_set.eval_set_id
        try:
            saved = manager.save_eval_set_result(app_name, set_id, job_results)
        except OSError as error:
            raise click.ClickException(f"Cannot save the results of {set_id}: {error}") from error
        path = manager.result_path(app_name, saved.eval_set_result_id)
        console.print(f"Results of {set_id} saved to {path}", markup=False)


@click.command("eval")
@click.argument("agent_dir", type=click.Path(path_type=Path))
@click.argument("eval_set_file_paths", metavar="EVAL_SET_FILE[:ID,...]...", nargs=-1, required=True)
@click.option(
    "--config-file-path",
    "--config_file_path",
    "config_file_path",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    default=None,
    help="A test_config.json for every eval set (default: the test_config.json beside "
    "each eval set file, else tool_trajectory_avg_score 1.0 and response_match_score 0.8).",
)
@click.option(
    "--print-detailed-results",
    "--print_detailed_results",
    "print_detailed_results",
    is_flag=True,
    help="Also print every invocation: expected and actual tool calls and responses, scores.",
)
@click.option(
    "--num-runs",
    "--num_runs",
    "num_runs",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="Runs of each case; a metric passes when its mean score reaches the threshold.",
)
@click.option(
    "--no-history",
    "--no_history",
    "no_history",
    is_flag=True,
    help="Do not save the results under AGENT_DIR/.adk/eval_history/.",
)
@click.option(
    "--fake-recorded-tools",
    "--fake_recorded_tools",
    "fake_recorded_tools",
    is_flag=True,
    help="Answer tool calls that match the expected ones with the results recorded in the "
    "eval set, instead of running the tools (a case's toolFakes always apply).",
)
def eval_command(
    agent_dir: Path,
    eval_set_file_paths: tuple[str, ...],
    config_file_path: Path | None,
    print_detailed_results: bool,
    num_runs: int,
    no_history: bool,
    fake_recorded_tools: bool,
) -> None:
    """Evaluate the agent in AGENT_DIR against eval set files (*.evalset.json, or the older
    *.test.json); FILE:id1,id2 runs only those cases. Exits 1 when a case failed."""
    console = make_console()
    try:
        app_name, agent = load_agent(agent_dir)
        config = (
            (load_eval_config(config_file_path), config_file_path) if config_file_path else None
        )
        jobs = [prepare_job(spec, config) for spec in eval_set_file_paths]
        results = asyncio.run(run_jobs(agent, app_name, jobs, num_runs, fake_recorded_tools))
    except CliError as error:
        raise click.ClickException(str(error)) from error
    except EvalConfigError as error:
        raise click.ClickException(one_line(error)) from error
    except KeyboardInterrupt:
        raise click.exceptions.Exit(130) from None
    summaries = [case for job_results in results for case in summarize(job_results)]
    print_summary(console, summaries)
    if print_detailed_results:
        print_details(console, [r for job_results in results for r in job_results], num_runs)
    if not no_history:
        save_history(console, Path(agent_dir), app_name, jobs, results)
    if print_counts(console, summaries)[EvalStatus.FAILED]:
        raise click.exceptions.Exit(1)
