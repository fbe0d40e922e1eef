"""What the benchmark records: the run's metadata, each task's payload and result."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from pyadk.contrib.bench.tasks import Task


class GeneratorSpec(BaseModel):
    """A generator to benchmark: a display name and a factory (or agent) reference."""

    name: str
    ref: str
    """``module:attr`` or ``file.py:attr``: a factory ``(model, **options) -> agent``, or an
    agent."""
    options: dict[str, Any] = Field(default_factory=dict)
    """Keyword options passed to the factory (only those its signature accepts)."""


class TaskPayload(BaseModel):
    """Everything a worker needs to run one task with one generator (JSON-serializable)."""

    run_id: str
    task: Task
    generator: GeneratorSpec
    model: str | None = None
    """Model spec (see pyadk.contrib.structured_workflow.model_specs)."""
    temperature: float | None = None
    seed: int | None = None
    timeout: float = 600.0
    """Seconds the generator may take on the task."""
    verify_timeout: float = 120.0
    task_dir: str
    task_set_hash: str | None = None
    """The task set's content hash (copied into the result)."""


class TaskResult(BaseModel):
    """One task's outcome: one line of results.jsonl."""

    run_id: str
    task_id: str
    generator: str
    passed: bool = False
    failure_reason: str | None = None
    """timeout, generator_error: ..., no_solution, verification_failed: ..., worker_error."""
    iterations: int | None = None
    model_calls: int = 0
    model_errors: int = 0
    prompt_tokens: int = 0
    output_tokens: int = 0
    total_tokens: int = 0
    wall_time: float = 0.0
    generate_time: float = 0.0
    verify_time: float = 0.0
    self_verified: bool | None = None
    """The generator's own verdict (state ``verified``), when it gives one."""
    solution_path: str | None = None
    difficulty: int = 1
    calls_by_agent: dict[str, int] = Field(default_factory=dict)
    model: str | None = None
    """The settings the result was produced with (as in run.json, so a line stands alone)."""
    temperature: float | None = None
    seed: int | None = None
    task_set_hash: str | None = None

    @classmethod
    def for_payload(cls, payload: TaskPayload, **fields: Any) -> TaskResult:
        """A result of ``payload`` (ids and settings filled in), with ``fields``."""
        return cls(
            run_id=payload.run_id,
            task_id=payload.task.id,
            generator=payload.generator.name,
            difficulty=payload.task.difficulty,
            model=payload.model,
            temperature=payload.temperature,
            seed=payload.seed,
            task_set_hash=payload.task_set_hash,
            **fields,
        )


class RunMetadata(BaseModel):
    """What makes a run reproducible (run.json)."""

    run_id: str
    started_at: str
    finished_at: str | None = None
    task_set: str
    task_set_hash: str
    task_ids: list[str]
    generators: list[GeneratorSpec]
    model: str | None
    model_name: str | None = None
    seed: int | None = None
    temperature: float | None = None
    timeout: float
    verify_timeout: float
    concurrency: int
    backend: str
    pyadk_version: str
    python_version: str
    platform: str
    git_commit: str | None = None
