"""Keeps eval sets as files beside the agents: ``<agents_dir>/<app>/<eval_set_id>.evalset.json``
(google-adk's place and format, so either tool reads the other's sets)."""

from __future__ import annotations

import json
import os
import re
import tempfile
import threading
import time
from pathlib import Path

from pydantic import BaseModel
from pydantic_core import PydanticSerializationError

from pyadk.evaluation.eval_case import EvalCase
from pyadk.evaluation.eval_set import EvalSet
from pyadk.evaluation.eval_set_files import load_eval_set

SUFFIX = ".evalset.json"
_NEW_ID = re.compile(r"[A-Za-z0-9_]+")
"""The ids :meth:`LocalEvalSetsManager.create_eval_set` accepts (google-adk's rule)."""
_FILE_ID = re.compile(r"[A-Za-z0-9_.-]+")
"""Ids of sets written by hand may also hold ``.`` and ``-``; never a path separator."""
_LOCK = threading.RLock()
"""Serializes read-modify-write of the set files within this process."""


class EvalNotFoundError(KeyError):
    """No eval set, or no eval case, of that id (the message names both ids)."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


class LocalEvalSetsManager:
    """Creates, reads, lists and edits the eval sets of the apps under ``agents_dir``."""

    def __init__(self, agents_dir: str | Path) -> None:
        self.agents_dir = Path(agents_dir)

    def eval_set_path(self, app_name: str, eval_set_id: str) -> Path:
        """The file of an eval set (which may not exist)."""
        return self._app_dir(app_name) / f"{eval_set_id}{SUFFIX}"

    def create_eval_set(self, app_name: str, eval_set_id: str) -> EvalSet:
        """Writes a new empty eval set; ValueError if the id is not ``[A-Za-z0-9_]+``
        or the set exists."""
        if not _NEW_ID.fullmatch(eval_set_id):
            raise ValueError(
                f"Invalid eval set id {eval_set_id!r}: use letters, digits and underscores."
            )
        with _LOCK:
            path = self.eval_set_path(app_name, eval_set_id)
            if path.exists():
                raise ValueError(f"Eval set {eval_set_id!r} already exists for app {app_name!r}.")
            eval_set = EvalSet(
                eval_set_id=eval_set_id,
                name=eval_set_id,
                eval_cases=[],
                creation_timestamp=time.time(),
            )
            _write_json(path, eval_set)
            return eval_set

    def get_eval_set(self, app_name: str, eval_set_id: str) -> EvalSet | None:
        """The eval set, or None when there is no such file. A file in google-adk's older
        list-of-queries format is read as a one-case set. ValueError for a file that is
        not an eval set (the message names it)."""
        if not _FILE_ID.fullmatch(eval_set_id):
            return None  # no file can have that name
        path = self.eval_set_path(app_name, eval_set_id)
        if not path.is_file():
            return None
        eval_set = load_eval_set(path)
        if eval_set.eval_set_id == path.name:  # the older format names it after the file
            eval_set.eval_set_id = eval_set_id
        return eval_set

    def list_eval_sets(self, app_name: str) -> list[str]:
        """The ids of ``app_name``'s eval sets, sorted ([] when it has none)."""
        directory = self._app_dir(app_name)
        if not directory.is_dir():
            return []
        ids = (p.name[: -len(SUFFIX)] for p in directory.glob(f"*{SUFFIX}") if p.is_file())
        return sorted(i for i in ids if _FILE_ID.fullmatch(i))

    def delete_eval_set(self, app_name: str, eval_set_id: str) -> None:
        """Removes the eval set's file; EvalNotFoundError (a KeyError) if there is none."""
        with _LOCK:
            self._require_set(app_name, eval_set_id)
            self.eval_set_path(app_name, eval_set_id).unlink()

    def get_eval_case(self, app_name: str, eval_set_id: str, eval_case_id: str) -> EvalCase | None:
        """The eval case, or None when the set or the case does not exist."""
        eval_set = self.get_eval_set(app_name, eval_set_id)
        if eval_set is None:
            return None
        return next((c for c in eval_set.eval_cases if c.eval_id == eval_case_id), None)

    def add_eval_case(self, app_name: str, eval_set_id: str, eval_case: EvalCase) -> None:
        """Appends ``eval_case``; EvalNotFoundError (a KeyError) if the set does not
        exist, ValueError if it already has a case of that id."""
        with _LOCK:
            eval_set = self._require_set(app_name, eval_set_id)
            if any(c.eval_id == eval_case.eval_id for c in eval_set.eval_cases):
                raise ValueError(
                    f"Eval set {eval_set_id!r} already has an eval case {eval_case.eval_id!r}."
                )
            eval_set.eval_cases.append(eval_case)
            _write_json(self.eval_set_path(app_name, eval_set_id), eval_set)

    def update_eval_case(self, app_name: str, eval_set_id: str, eval_case: EvalCase) -> None:
        """Replaces the case of ``eval_case.eval_id`` (keeping its place);
        EvalNotFoundError (a KeyError) if the set or the case does not exist."""
        with _LOCK:
            eval_set = self._require_set(app_name, eval_set_id)
            index = self._case_index(eval_set, eval_case.eval_id)
            eval_set.eval_cases[index] = eval_case
            _write_json(self.eval_set_path(app_name, eval_set_id), eval_set)

    def delete_eval_case(self, app_name: str, eval_set_id: str, eval_case_id: str) -> None:
        """Removes a case; EvalNotFoundError (a KeyError) if the set or the case does not
        exist."""
        with _LOCK:
            eval_set = self._require_set(app_name, eval_set_id)
            del eval_set.eval_cases[self._case_index(eval_set, eval_case_id)]
            _write_json(self.eval_set_path(app_name, eval_set_id), eval_set)

    def _app_dir(self, app_name: str) -> Path:
        if not _FILE_ID.fullmatch(app_name) or app_name in (".", ".."):
            raise ValueError(f"Invalid app name {app_name!r}: it must name one directory.")
        return self.agents_dir / app_name

    def _require_set(self, app_name: str, eval_set_id: str) -> EvalSet:
        eval_set = self.get_eval_set(app_name, eval_set_id)
        if eval_set is None:
            raise EvalNotFoundError(f"Eval set {eval_set_id!r} not found for app {app_name!r}.")
        return eval_set

    @staticmethod
    def _case_index(eval_set: EvalSet, eval_case_id: str) -> int:
        for index, case in enumerate(eval_set.eval_cases):
            if case.eval_id == eval_case_id:
                return index
        raise EvalNotFoundError(
            f"Eval case {eval_case_id!r} not found in eval set {eval_set.eval_set_id!r}."
        )


def _write_json(path: Path, model: BaseModel) -> None:
    """Writes camelCase JSON atomically (a reader never sees half a file). A value JSON
    cannot hold (an object a tool returned, say) is written as its ``repr``."""
    try:
        text = model.model_dump_json(by_alias=True, exclude_none=True, indent=2)
    except PydanticSerializationError:
        data = model.model_dump(mode="python", by_alias=True, exclude_none=True)
        text = json.dumps(data, indent=2, default=repr)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            file.write(text)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
