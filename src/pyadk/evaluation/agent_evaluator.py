"""Evaluates an agent from pytest: ``await AgentEvaluator.evaluate(module, path)``."""

from __future__ import annotations

import importlib
import json
from pathlib import Path
from types import ModuleType
from typing import Any

from pyadk.agents.base_agent import BaseAgent
from pyadk.evaluation.eval_config import (
    EvalConfig,
    find_config_for_test_file,
    get_eval_metrics_from_config,
)
from pyadk.evaluation.eval_runner import evaluate_eval_set
from pyadk.evaluation.eval_set import EvalSet
from pyadk.evaluation.eval_set_files import eval_set_files, load_eval_set
from pyadk.evaluation.eval_summary import failure_lines, format_summaries, summarize

NUM_RUNS = 2
"""Runs per case: models vary, so one lucky run should not pass a case."""

AgentSource = str | ModuleType | BaseAgent


class AgentEvaluator:
    """google-adk's entry point for evaluations in tests; raises AssertionError listing
    every metric that missed its threshold (mean over ``num_runs``)."""

    @staticmethod
    async def evaluate(
        agent_module: AgentSource,
        eval_dataset_file_path_or_dir: str | Path,
        num_runs: int = NUM_RUNS,
        agent_name: str | None = None,
        initial_session_file: str | Path | None = None,
        print_detailed_results: bool = True,
    ) -> None:
        """Evaluates every eval file at the path (a file, or a directory searched for
        ``*.test.json`` and ``*.evalset.json``), each with the ``test_config.json``
        beside it or the default criteria."""
        initial_session = _initial_session(initial_session_file)
        for path in eval_set_files(eval_dataset_file_path_or_dir):
            await AgentEvaluator.evaluate_eval_set(
                agent_module,
                load_eval_set(path, initial_session),
                eval_config=find_config_for_test_file(path),
                num_runs=num_runs,
                agent_name=agent_name,
                print_detailed_results=print_detailed_results,
                eval_set_file=str(path),
            )

    @staticmethod
    async def evaluate_eval_set(
        agent_module: AgentSource,
        eval_set: EvalSet,
        criteria: dict[str, float] | None = None,
        eval_config: EvalConfig | None = None,
        num_runs: int = NUM_RUNS,
        agent_name: str | None = None,
        print_detailed_results: bool = True,
        eval_set_file: str | None = None,
    ) -> None:
        """Evaluates one eval set with ``criteria`` or ``eval_config`` (not both); its
        scenario cases are simulated with ``eval_config.user_simulator_config``."""
        if criteria is not None and eval_config is not None:
            raise ValueError("Give criteria or eval_config, not both.")
        if criteria is not None:
            eval_config = EvalConfig(criteria=dict(criteria))
        eval_config = eval_config or EvalConfig()
        metrics = get_eval_metrics_from_config(eval_config)
        agent = resolve_agent(agent_module, agent_name)
        results = await evaluate_eval_set(
            agent,
            eval_set,
            metrics,
            num_runs=num_runs,
            eval_set_file=eval_set_file,
            user_simulator_config=eval_config.user_simulator_config,
        )
        summaries = summarize(results)
        if print_detailed_results:
            print(format_summaries(summaries))
        failures = failure_lines(summaries)
        if failures:
            raise AssertionError(
                f"Eval set {eval_set.eval_set_id!r} failed:\n" + "\n".join(failures)
            )

    @staticmethod
    def migrate_eval_data_to_new_schema(
        old_eval_data_file: str | Path,
        new_eval_data_file: str | Path,
        initial_session_file: str | Path | None = None,
    ) -> None:
        """Rewrites an older ``*.test.json`` file as an ``*.evalset.json`` file."""
        eval_set = load_eval_set(old_eval_data_file, _initial_session(initial_session_file))
        Path(new_eval_data_file).write_text(
            eval_set.model_dump_json(indent=2, by_alias=True, exclude_none=True),
            encoding="utf-8",
        )

    find_config_for_test_file = staticmethod(find_config_for_test_file)


def resolve_agent(source: AgentSource, agent_name: str | None = None) -> BaseAgent:
    """The agent to evaluate: ``source`` itself, or the ``root_agent`` of a module (or
    of its ``agent`` submodule); ``agent_name`` picks an agent of its tree."""
    agent = source if isinstance(source, BaseAgent) else _root_agent(source)
    if agent_name is None:
        return agent
    found = agent.find_agent(agent_name)
    if found is None:
        raise ValueError(f"No agent named {agent_name!r} under {agent.name!r}.")
    return found


def _root_agent(source: str | ModuleType) -> BaseAgent:
    module = importlib.import_module(source) if isinstance(source, str) else source
    agent = getattr(module, "root_agent", None)
    if agent is None:
        submodule = getattr(module, "agent", None)
        if not isinstance(submodule, ModuleType):
            submodule = _import_optional(f"{module.__name__}.agent")
        agent = getattr(submodule, "root_agent", None)
    if not isinstance(agent, BaseAgent):
        raise ValueError(f"{module.__name__} has no root_agent (nor has its agent module).")
    return agent


def _import_optional(name: str) -> ModuleType | None:
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as error:
        if error.name != name:
            raise
        return None


def _initial_session(path: str | Path | None) -> dict[str, Any]:
    if path is None:
        return {}
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    if not isinstance(data, dict):
        raise ValueError(f"{path}: an initial session is a JSON object.")
    return data
