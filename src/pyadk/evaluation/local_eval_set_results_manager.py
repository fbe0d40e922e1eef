"""Keeps eval run results as JSON files: ``<agents_dir>/<app>/.adk/eval_history/``
(google-adk's place, so either tool finds the other's history)."""

from __future__ import annotations

import re
import time
from pathlib import Path

from pydantic_core import to_json

from pyadk.evaluation.eval_result import EvalCaseResult, EvalSetResult

HISTORY_DIR = Path(".adk") / "eval_history"
SUFFIX = ".evalset_result.json"
_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")


class LocalEvalSetResultsManager:
    """Saves, reads and lists :class:`EvalSetResult` files of the apps under
    ``agents_dir``."""

    def __init__(self, agents_dir: str | Path) -> None:
        self.agents_dir = Path(agents_dir)

    def history_dir(self, app_name: str) -> Path:
        """Where ``app_name``'s results are kept."""
        return self.agents_dir / app_name / HISTORY_DIR

    def save_eval_set_result(
        self, app_name: str, eval_set_id: str, eval_case_results: list[EvalCaseResult]
    ) -> EvalSetResult:
        """Writes one result file for this run and returns what it holds."""
        now = time.time()
        result_id = _UNSAFE.sub("_", f"{app_name}_{eval_set_id}_{now:.6f}")
        result = EvalSetResult(
            eval_set_result_id=result_id,
            eval_set_result_name=result_id,
            eval_set_id=eval_set_id,
            eval_case_results=eval_case_results,
            creation_timestamp=now,
        )
        directory = self.history_dir(app_name)
        directory.mkdir(parents=True, exist_ok=True)
        # snake_case, as google-adk writes it; a value JSON cannot hold (an object a
        # tool returned) is kept as its repr rather than failing the save.
        text = to_json(result, indent=2, fallback=repr).decode()
        self.result_path(app_name, result_id).write_text(text, encoding="utf-8")
        return EvalSetResult.model_validate_json(text)

    def result_path(self, app_name: str, eval_set_result_id: str) -> Path:
        """The file that holds (or would hold) one result."""
        return self.history_dir(app_name) / f"{eval_set_result_id}{SUFFIX}"

    def get_eval_set_result(self, app_name: str, eval_set_result_id: str) -> EvalSetResult:
        """One saved result; KeyError when there is none of that id."""
        path = self.result_path(app_name, eval_set_result_id)
        if _UNSAFE.search(eval_set_result_id) or not path.is_file():
            raise KeyError(f"No eval result {eval_set_result_id!r} for app {app_name!r}")
        return EvalSetResult.model_validate_json(path.read_text(encoding="utf-8"))

    def list_eval_set_results(self, app_name: str) -> list[str]:
        """The ids of ``app_name``'s saved results, oldest first."""
        directory = self.history_dir(app_name)
        if not directory.is_dir():
            return []
        files = sorted(directory.glob(f"*{SUFFIX}"), key=lambda p: p.stat().st_mtime)
        return [p.name[: -len(SUFFIX)] for p in files]
