"""Task sets: tasks (id, request, verification) read from YAML or JSON."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, model_validator

STARTER_SUITE = Path(__file__).with_name("starter_tasks.yaml")
"""The packaged starter suite (``--tasks starter``)."""


class Verification(BaseModel):
    """How a solution is checked: a shell ``command`` or a ``checker`` function."""

    command: str | None = None
    """Runs in the task folder with $SOLUTION_FILE, $TASK_DIR and $PYTHON; passes on exit 0."""
    checker: str | None = None
    """``module:function`` or ``file.py:function`` called with the solution's path."""
    timeout: float | None = Field(default=None, gt=0)
    """Seconds the check may take (default: the run's verify timeout)."""

    @model_validator(mode="after")
    def _exactly_one(self) -> Verification:
        if (self.command is None) == (self.checker is None):
            raise ValueError("verification needs exactly one of 'command' or 'checker'")
        return self


class Task(BaseModel):
    """One task: what to ask the generator and how to check its answer."""

    id: str = Field(pattern=r"^[A-Za-z0-9_.-]+$")
    request: str = Field(min_length=1)
    verification: Verification
    difficulty: int = 1
    tags: list[str] = Field(default_factory=list)


class TaskSet(BaseModel):
    """A named list of tasks with unique ids."""

    name: str = "tasks"
    version: int | str = 1
    tasks: list[Task]

    @model_validator(mode="after")
    def _unique_ids(self) -> TaskSet:
        seen: set[str] = set()
        for task in self.tasks:
            if task.id in seen:
                raise ValueError(f"duplicate task id {task.id!r}")
            seen.add(task.id)
        return self

    def content_hash(self) -> str:
        """sha256 of the task set's canonical JSON (recorded with every run)."""
        canonical = json.dumps(self.model_dump(mode="json"), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(canonical.encode()).hexdigest()

    def select(self, ids: list[str] | None = None, limit: int | None = None) -> TaskSet:
        """The tasks with the given ids (in this set's order), then the first ``limit``."""
        tasks = self.tasks
        if ids:
            unknown = set(ids) - {t.id for t in tasks}
            if unknown:
                raise ValueError(f"unknown task ids: {', '.join(sorted(unknown))}")
            tasks = [t for t in tasks if t.id in ids]
        if limit is not None:
            tasks = tasks[:limit]
        return self.model_copy(update={"tasks": tasks})


def parse_task_set(data: Any) -> TaskSet:
    """A TaskSet from parsed YAML/JSON: a mapping with ``tasks``, or a list of tasks."""
    if isinstance(data, list):
        data = {"tasks": data}
    return TaskSet.model_validate(data)


def load_task_set(source: str | Path) -> TaskSet:
    """Reads a task set: ``starter``, or a ``.yaml``/``.yml``/``.json`` file."""
    path = STARTER_SUITE if str(source) == "starter" else Path(source)
    text = path.read_text(encoding="utf-8")
    if path.suffix.lower() == ".json":
        data = json.loads(text)
    else:
        try:
            import yaml
        except ImportError as error:  # pragma: no cover - depends on the environment
            raise ImportError("YAML task sets need PyYAML: pip install 'pyadk[bench]'.") from error
        data = yaml.safe_load(text)
    task_set = parse_task_set(data)
    if task_set.name == "tasks":
        task_set.name = path.stem
    return task_set
